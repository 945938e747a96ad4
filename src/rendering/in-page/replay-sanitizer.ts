// Run in the browser by the screenshot page and the hosted player, on every recording before rrweb's
// Replayer sees it: `sanitizeReplay(events)` removes (in place) what a replay must never load or
// navigate to, from full snapshots, added nodes, attribute and text changes and style events alike.
// A recording is written by whoever holds a tenant's public key, and a replayed <iframe src>, <link
// rel=preconnect> or <meta http-equiv=refresh> made each viewer's browser contact the host it named
// (or the renderer's Chromium crash, for a data: frame). Removed:
// - frames: iframe/frame src unless about:blank (rrweb records a frame's document in the snapshot
//   itself), srcdoc; object, embed and applet sources; <base href>; xml:base; ping;
// - hints and refreshes: the href of a <link> that is not a plain stylesheet (preconnect, prefetch,
//   dns-prefetch, preload, modulepreload, prerender, icon, ...), <meta http-equiv=refresh>;
// - URLs by where they are used (url-policy.ts): images and media keep http(s) and data: URLs (the
//   player's CSP decides which hosts load), stylesheets http(s) only, SVG references #fragments only,
//   link targets anything but javascript:, data:, blob: and the like; URLs in CSS (stylesheets, style
//   attributes and events, font sources, url() in any attribute) by css-urls.ts.
// Returns how many values it removed or rewrote. A live viewer gets the recording batch by batch:
// `createReplaySanitizer()` answers a function to call on each batch in order, which remembers the
// nodes of the earlier ones (an attribute change names its node by id only).
import { sanitizeCss } from './css-urls';
import { sanitizeSrcset, urlAllowed, type UrlUse } from './url-policy';

type Json = Record<string, unknown>;

/** What the sanitiser knows about a replayed node, by rrweb id. */
interface NodeInfo {
  /** Lower-case tag name as rrweb builds it ("style" for a <link> carrying its stylesheet), "#text", "#css" (a stylesheet's text), "#other". */
  tag: string;
  svg: boolean;
  /** A link's rel, lower case. */
  rel?: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const EMBEDS = /^(?:object|embed|applet|portal|fencedframe)$/;
const EMBED_SOURCES = /^(?:src|data|codebase|archive|classid|code|movie)$/;
const MEDIA = /^(?:video|audio|source|track)$/;
/** rel tokens of a <link> that loads nothing but a stylesheet (or nothing at all). */
const PLAIN_LINK = /^(?:stylesheet|alternate)$/;

/** Whether a <link> with this rel may keep its href: a stylesheet, nothing that hints or preloads. */
function plainStylesheet(rel: string | undefined): boolean {
  const tokens = (rel || '').split(/[\t\n\f\r ]+/).filter(Boolean);
  return tokens.indexOf('stylesheet') >= 0 && tokens.every((t) => PLAIN_LINK.test(t));
}

/** How attribute `name` (lower case) of a node is used: a URL use, 'drop', 'srcset', 'css' or null (kept). */
function attributeUse(info: NodeInfo | undefined, name: string, rel: string | undefined): UrlUse | 'drop' | 'srcset' | 'css' | null {
  const tag = info ? info.tag : '';
  if (name === 'ping' || name === 'xml:base' || name === 'srcdoc' || name === 'manifest') return 'drop';
  if (name === 'style') return 'css';
  // A link that hints, preloads or names an icon is kept inert: no rel (a preload without its href
  // is a console warning), no href, no image preload.
  if (tag === 'link' && (name === 'imagesrcset' || name === 'imagesizes' || (name === 'rel' && !plainStylesheet(rel)))) return 'drop';
  if (name === 'srcset' || name === 'imagesrcset') return 'srcset';
  if (name === 'poster' || name === 'background') return 'image';
  if (EMBEDS.test(tag) && EMBED_SOURCES.test(name)) return 'drop';
  if (name === 'src') {
    if (!info) return 'frame'; // unknown node: the strictest use
    if (tag === 'iframe' || tag === 'frame') return 'frame';
    if (tag === 'script') return 'drop';
    return MEDIA.test(tag) ? 'media' : 'image';
  }
  if (name === 'href' || name === 'xlink:href') {
    if (!info) return 'reference';
    if (tag === 'link') return plainStylesheet(rel) ? 'stylesheet' : 'drop';
    if (tag === 'base') return 'drop';
    if (info.svg) return tag === 'image' || tag === 'feimage' ? 'image' : tag === 'a' ? 'navigation' : 'reference';
    return 'navigation';
  }
  if (name === 'action' || name === 'formaction') return 'navigation';
  return null;
}

export function sanitizeReplay(events: readonly unknown[]): number {
  return createReplaySanitizer()(events);
}

/** `sanitizeReplay` for a recording that arrives in parts: call the answer on each part, in order. */
export function createReplaySanitizer(): (events: readonly unknown[]) => number {
  // By rrweb id (a Map: ids come from the recording, "__proto__" included).
  let known = new Map<string, NodeInfo>();
  let changes = 0;
  const css = (text: string): string => {
    const clean = sanitizeCss(text);
    if (clean !== text) changes++;
    return clean;
  };

  /** Sanitises one node's attributes (a serialised node's, or a change of them: `change`). */
  function attributes(info: NodeInfo | undefined, attrs: Json, change: boolean): void {
    let rel = info ? info.rel : undefined;
    if (typeof attrs.rel === 'string' && info && info.tag === 'link') {
      rel = info.rel = attrs.rel.toLowerCase();
      // A link turned into a hint must not keep the href it had.
      if (change && !plainStylesheet(rel)) for (const k of ['href', 'imagesrcset']) attrs[k] = null;
    }
    for (const name of Object.keys(attrs)) {
      const value = attrs[name];
      const lower = name.toLowerCase();
      if (lower === 'style' && isObject(value)) {
        // rrweb's style change: property -> value, [value, priority] or false.
        for (const p of Object.keys(value)) {
          const v = value[p];
          if (typeof v === 'string') value[p] = css(v);
          else if (Array.isArray(v) && typeof v[0] === 'string') v[0] = css(v[0]);
        }
        continue;
      }
      if (typeof value !== 'string') continue;
      // <meta http-equiv=refresh>, and SMIL animations of a link or reference (<set attributeName=href to=…>).
      if ((lower === 'http-equiv' && value.trim().toLowerCase() === 'refresh') || (lower === 'attributename' && /href\s*$/i.test(value))) {
        remove(attrs, name, change);
        continue;
      }
      if (lower === 'rr_dataurl') {
        if (!/^data:image\//i.test(value.trim())) remove(attrs, name, change);
        continue;
      }
      const use = attributeUse(info, lower, rel);
      if (use === 'drop') remove(attrs, name, change);
      else if (use === 'css' || (use === null && value.indexOf('(') >= 0)) attrs[name] = css(value);
      else if (use === 'srcset') {
        const kept = sanitizeSrcset(value);
        if (kept === null) remove(attrs, name, change);
        else if (kept !== value) {
          attrs[name] = kept;
          changes++;
        }
      } else if (use !== null && !urlAllowed(value, use)) remove(attrs, name, change);
    }
  }

  /** Removes an attribute from a serialised node, or makes a change remove it. */
  function remove(attrs: Json, name: string, change: boolean): void {
    if (change) attrs[name] = null;
    else delete attrs[name];
    changes++;
  }

  /** A serialised node and its subtree (iteratively: rrweb builds trees deeper than a call stack allows us). */
  function visit(root: unknown, rootParent: NodeInfo | null | undefined): void {
    // parent: its parent's info; null for none (a document's child), undefined when not known.
    const stack: { node: unknown; parent: NodeInfo | null | undefined }[] = [{ node: root, parent: rootParent }];
    for (let item = stack.pop(); item; item = stack.pop()) {
      const { node, parent } = item;
      if (!isObject(node)) continue;
      const id = String(node.id);
      let info: NodeInfo | null = null;
      if (node.type === 2 && typeof node.tagName === 'string') {
        const attrs = isObject(node.attributes) ? node.attributes : (node.attributes = {});
        let tag = node.tagName.toLowerCase();
        if (tag === 'link' && typeof attrs._cssText === 'string') tag = 'style'; // rrweb builds it so
        info = { tag, svg: !!node.isSVG, rel: typeof attrs.rel === 'string' ? attrs.rel.toLowerCase() : undefined };
        if (typeof attrs._cssText === 'string') attrs._cssText = css(attrs._cssText);
        attributes(info, attrs, false);
      } else if (node.type === 3) {
        // A text node in a <style> is CSS; so is one whose parent is not known yet (rrweb attaches it later).
        const styled = node.isStyle === true || parent === undefined || (parent !== null && parent.tag === 'style');
        info = { tag: styled ? '#css' : '#text', svg: false };
        if (styled && typeof node.textContent === 'string') node.textContent = css(node.textContent);
      }
      known.set(id, info || { tag: '#other', svg: false });
      const children = arr(node.childNodes);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], parent: info });
    }
  }

  function incremental(d: Json): void {
    switch (d.source) {
      case 0: // mutation: adds, then texts, then attributes, as rrweb applies them
        for (const add of arr(d.adds)) if (isObject(add)) visit(add.node, add.parentId == null ? undefined : known.get(String(add.parentId)));
        for (const t of arr(d.texts)) {
          const info = isObject(t) ? known.get(String(t.id)) : undefined;
          if (isObject(t) && typeof t.value === 'string' && (!info || info.tag === '#css')) t.value = css(t.value);
        }
        for (const a of arr(d.attributes)) if (isObject(a) && isObject(a.attributes)) attributes(known.get(String(a.id)), a.attributes, true);
        break;
      case 8: // style sheet rules
        for (const add of arr(d.adds)) if (isObject(add) && typeof add.rule === 'string') add.rule = css(add.rule);
        if (typeof d.replace === 'string') d.replace = css(d.replace);
        if (typeof d.replaceSync === 'string') d.replaceSync = css(d.replaceSync);
        break;
      case 13: // style declaration
        if (isObject(d.set) && typeof d.set.value === 'string') d.set.value = css(d.set.value);
        break;
      case 15: // adopted style sheets
        for (const s of arr(d.styles)) for (const r of arr(isObject(s) ? s.rules : null)) if (isObject(r) && typeof r.rule === 'string') r.rule = css(r.rule);
        break;
      case 10: // font: a source given as CSS src (url(...)) unless it is the font's bytes
        if (!d.buffer && typeof d.fontSource === 'string') d.fontSource = css(d.fontSource);
        break;
      default:
    }
  }
  return (events) => {
    changes = 0;
    for (const e of events) {
      if (!isObject(e) || !isObject(e.data)) continue;
      const d = e.data;
      if (e.type === 2) {
        known = new Map(); // a new page: rrweb rebuilds its node map from this snapshot
        visit(d.node, null);
      } else if (e.type === 3) incremental(d);
    }
    return changes;
  };
}
