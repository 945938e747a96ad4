import { NORMALISE_SOURCE, wrapOfficialClient } from './official-client-wrapper';

const normalise = new Function(`return (${NORMALISE_SOURCE});`)() as (o: unknown) => unknown;

/** Runs the served script the way a browser would: `document.currentScript` is the tag, `this` is window. */
function runServed(tagText: string, client: string) {
  const tag = { text: tagText };
  const window: Record<string, any> = {};
  const script = wrapOfficialClient(Buffer.from(client)).toString('utf8');

  new Function('window', 'document', script).call(window, window, { currentScript: tag });
  return { tag, window };
}

describe('normalise (option names of rrweb Cloud docs and its first client)', () => {
  it.each([
    ['publicAPIkey', 'publicApiKey'],
    ['publicAPIKey', 'publicApiKey'],
    ['public_api_key', 'publicApiKey'],
    ['public-api-key', 'publicApiKey'],
    ['autoStart', 'autostart'],
    ['auto_start', 'autostart'],
    ['includePII', 'includePii'],
    ['serverURL', 'serverUrl'],
    ['JSSource', 'jsSource'],
  ])('renames %s to %s', (alias, name) => {
    expect(normalise({ [alias]: 'v', maskAllInputs: false })).toEqual({ [name]: 'v', maskAllInputs: false });
  });

  it("keeps the client's own name when both are given, and leaves rrweb options and odd values alone", () => {
    expect(normalise({ publicAPIkey: 'old', publicApiKey: 'new' })).toEqual({ publicAPIkey: 'old', publicApiKey: 'new' });
    expect(normalise({ blockSelector: '.x', sampling: { scroll: 150 } })).toEqual({ blockSelector: '.x', sampling: { scroll: 150 } });
    for (const odd of [undefined, null, 'k', 3, ['publicAPIkey']]) expect(normalise(odd)).toEqual(odd);
  });
});

describe('wrapOfficialClient', () => {
  // Stands in for the client: records what it read from its tag and what start() got.
  const fakeClient = `(function (g) {
    var seen = { tag: document.currentScript.text, started: [] };
    var start = function (o) { seen.started.push(o); };
    g.rrwebBrowserClient = { start: start, default: { start: start }, seen: seen };
  })(this);`;

  it('rewrites the script tag body with the client names before the client reads it', () => {
    const { window } = runServed('{\n  // a comment\n  "publicAPIkey": "public_key_svc_x",\n  "autoStart": true,\n}', fakeClient);
    expect(JSON.parse(window.rrwebBrowserClient.seen.tag)).toEqual({ publicApiKey: 'public_key_svc_x', autostart: true });
  });

  it('leaves a body that needs nothing, or that is not JSON, as written', () => {
    const fine = '{ "publicApiKey": "k", // trailing comma next\n }';
    expect(runServed(fine, fakeClient).window.rrwebBrowserClient.seen.tag).toBe(fine);
    expect(runServed('{ not json', fakeClient).window.rrwebBrowserClient.seen.tag).toBe('{ not json');
    expect(runServed('', fakeClient).window.rrwebBrowserClient.seen.tag).toBe('');
  });

  it('normalises the options of start(), on the global and on its default export', () => {
    const { window } = runServed('', fakeClient);
    window.rrwebBrowserClient.start({ publicAPIKey: 'a' });
    window.rrwebBrowserClient.default.start({ AutoStart: false });
    expect(window.rrwebBrowserClient.seen.started).toEqual([{ publicApiKey: 'a' }, { autostart: false }]);
  });
});
