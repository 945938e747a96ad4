// Run in the browser by the screenshot page and the hosted player:
// `replayFixes(events)` prepares a recording for rrweb's Replayer and returns the style rules to give
// it (insertStyleRules, put before the page's own styles). Two things rrweb's rebuild gets wrong
// (what it must not load is replay-sanitizer.ts's; an iframe's srcdoc, which raced with the
// recorded document rrweb puts in the frame, upstream rrweb #1905, is dropped there):
//
// - Canvas. The replay frame runs no scripts (its sandbox lacks allow-scripts), and a <canvas> with
//   scripting disabled is not a canvas but its fallback content: an inline box that ignores its width
//   and height attributes, so a 400x200 chart collapsed to nothing and everything below it moved up.
//   The rules give each canvas the box its attributes gave it on the live page, blank, with its
//   fallback content hidden. They have zero specificity (:where), so any size or display the page's
//   own CSS or style attribute sets wins, as it did live (a chart library's inline size included).
// - Page views. rrweb writes a page view's Meta event, serialises the page, then writes its
//   FullSnapshot (milliseconds to a second later). Seeking between the two, rrweb's Replayer drops
//   everything before the Meta and has no snapshot to show yet: a wrong page (the previous one as it
//   was first built, or nothing) exactly where "last frame before the navigation" is asked for. A
//   later Meta event takes its snapshot's time, so until the new page exists the previous one is
//   shown as it ended (recording-summary.ts sizes that moment by the same rule). The first Meta
//   stays: it is the recording's start.
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
/** `v[key]` for an object, undefined for anything else (JSON holds no other values with fields). */
const field = (v: unknown, key: string): unknown => (isObject(v) ? v[key] : undefined);

export function replayFixes(events: readonly unknown[]): string[] {
  return createReplayFixes()(events);
}

/**
 * `replayFixes` for a recording that arrives in parts: call the answer on each part, in order; it
 * answers the rules for everything so far. A Meta event's time is moved once its FullSnapshot comes,
 * in that part or a later one: whoever hands parts on holds back a part's trailing Meta until then
 * (`pendingMeta()` answers it while it waits).
 */
export function createReplayFixes(): ((events: readonly unknown[]) => string[]) & { pendingMeta(): unknown } {
  const widths: Record<string, boolean> = {};
  const heights: Record<string, boolean> = {};
  const canvases: Record<string, boolean> = {};
  let seenMeta = false;
  let meta: Json | null = null;
  const fixes = (events: readonly unknown[]): string[] => {
    fixMetas(events);
    scan(events);
    return rules();
  };
  return Object.assign(fixes, { pendingMeta: () => meta });

  function fixMetas(events: readonly unknown[]): void {
    for (let m = 0; m < events.length; m++) {
      const ev = events[m];
      if (!isObject(ev)) continue;
      if (ev.type === 4) {
        meta = seenMeta ? ev : null;
        seenMeta = true;
      } else if (ev.type === 2 && meta) {
        if ((ev.timestamp as number) > (meta.timestamp as number)) meta.timestamp = ev.timestamp;
        meta = null;
      }
    }
  }
  function size(v: unknown): string | null {
    const s = typeof v === 'number' ? String(v) : v;
    return typeof s === 'string' && /^\d{1,5}$/.test(s) ? s : null;
  }
  function noteCanvas(attrs: unknown): void {
    if (!isObject(attrs)) return;
    const w = size(attrs.width);
    const h = size(attrs.height);
    if (w !== null) widths[w] = true;
    if (h !== null) heights[h] = true;
  }
  function visit(node: unknown, depth: number): void {
    if (!isObject(node) || depth > 500) return;
    if (node.type === 2 && typeof node.tagName === 'string' && node.tagName.toLowerCase() === 'canvas') {
      canvases[String(node.id)] = true;
      noteCanvas(node.attributes);
    }
    const kids = node.childNodes as ArrayLike<unknown> | null | undefined;
    if (kids && kids.length) for (let i = 0; i < kids.length; i++) visit(kids[i], depth + 1);
  }
  function scan(events: readonly unknown[]): void {
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      const d = field(e, 'data');
      if (!isObject(d)) continue;
      const type = field(e, 'type');
      if (type === 2) visit(d.node, 0);
      else if (type === 3 && d.source === 0) {
        const adds = (d.adds || []) as ArrayLike<unknown>;
        const attrs = (d.attributes || []) as ArrayLike<unknown>;
        for (let j = 0; j < adds.length; j++) if (adds[j]) visit(field(adds[j], 'node'), 0);
        for (let j = 0; j < attrs.length; j++) {
          const a = attrs[j];
          if (!isObject(a) || !isObject(a.attributes)) continue;
          if (canvases[String(a.id)]) noteCanvas(a.attributes);
        }
      }
    }
  }
  function rules(): string[] {
    const rules = [':where(canvas){display:inline-block;width:300px;height:150px;overflow:hidden;color:transparent}', ':where(canvas) *{visibility:hidden}'];
    let n = 0;
    for (const k of Object.keys(widths)) if (n++ < 500) rules.push(':where(canvas[width="' + k + '"]){width:' + Number(k) + 'px}');
    for (const k of Object.keys(heights)) if (n++ < 1000) rules.push(':where(canvas[height="' + k + '"]){height:' + Number(k) + 'px}');
    return rules;
  }
}
