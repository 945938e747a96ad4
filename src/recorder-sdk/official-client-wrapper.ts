// /record.js is @rrweb/browser-client's UMD build between two small scripts that accept the option
// spellings of rrweb Cloud's docs and first-generation client (`publicAPIkey`, `autoStart`, …): that
// client (@rrwebcloud/js-client alpha.25) matched its option names case-, `-`- and `_`-insensitively,
// @rrweb/browser-client reads only `publicApiKey` and `autostart`, so a page moved from rrweb Cloud
// by changing the script's host recorded nothing (no key sent: 401 on every request).
//  - before the client: the script tag's JSON body is rewritten with the client's own names (the
//    client reads the tag when it runs, just after; a script's text changed after it started never
//    runs again);
//  - after it: `rrwebBrowserClient.start(options)` gets the same treatment.
// The client itself runs unchanged. Plain ES2015 in strings: this is sent to browsers as is.

/** The client's own option names; any other key (rrweb `record()` options) passes untouched. */
export const CLIENT_OPTION_NAMES = ['publicApiKey', 'serverUrl', 'autostart', 'includePii', 'meta', 'jsSource', 'jsEntrypoint', 'emit'] as const;

/** `normalise(options)`: a copy with each alias renamed to the client's name, unless that name is set too. */
export const NORMALISE_SOURCE = `function (options) {
  if (!options || typeof options !== 'object' || Array.isArray(options)) return options;
  var names = ${JSON.stringify(CLIENT_OPTION_NAMES)};
  var out = {};
  var key;
  for (key in options) if (Object.prototype.hasOwnProperty.call(options, key)) out[key] = options[key];
  for (key in options) {
    if (!Object.prototype.hasOwnProperty.call(options, key)) continue;
    var flat = key.replace(/[-_]/g, '').toLowerCase();
    for (var i = 0; i < names.length; i++) {
      if (names[i].toLowerCase() === flat && names[i] !== key && !Object.prototype.hasOwnProperty.call(options, names[i])) {
        out[names[i]] = options[key];
        delete out[key];
      }
    }
  }
  return out;
}`;

// The client's own reading of the tag: comment lines and trailing commas are allowed.
const BEFORE = `;(function () {
  var normalise = ${NORMALISE_SOURCE};
  try {
    var tag = typeof document !== 'undefined' && document.currentScript;
    if (!tag || !tag.text || !tag.text.trim()) return;
    var config = JSON.parse(tag.text.replace(/^\\s*\\/\\/.*/gm, '').replace(/,(\\s*[\\]}])/g, '$1'));
    var fixed = normalise(config);
    if (JSON.stringify(fixed) !== JSON.stringify(config)) tag.text = JSON.stringify(fixed);
  } catch (e) {
    // Not JSON: the client reports it itself.
  }
})();
`;

const AFTER = `
;(function () {
  var normalise = ${NORMALISE_SOURCE};
  var client = typeof window !== 'undefined' ? window.rrwebBrowserClient : undefined;
  if (!client || typeof client.start !== 'function') return;
  var start = client.start;
  var wrapped = function (options) { return start(normalise(options)); };
  client.start = wrapped;
  if (client['default'] && client['default'].start === start) client['default'].start = wrapped;
})();
`;

/** The served /record.js: the client's UMD build between the two scripts above. */
export function wrapOfficialClient(umd: Buffer): Buffer {
  return Buffer.concat([Buffer.from(BEFORE, 'utf8'), umd, Buffer.from(AFTER, 'utf8')]);
}
