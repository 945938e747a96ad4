// Shared by the screenshot page and the hosted player (plain ES5 text, run in the browser):
// `replayFixes(events)` prepares a recording for rrweb's Replayer and returns the style rules to give
// it (insertStyleRules, put before the page's own styles). Two things rrweb's rebuild gets wrong:
//
// - Canvas. The replay frame runs no scripts (its sandbox lacks allow-scripts), and a <canvas> with
//   scripting disabled is not a canvas but its fallback content: an inline box that ignores its width
//   and height attributes, so a 400x200 chart collapsed to nothing and everything below it moved up.
//   The rules give each canvas the box its attributes gave it on the live page, blank, with its
//   fallback content hidden. They have zero specificity (:where), so any size or display the page's
//   own CSS or style attribute sets wins, as it did live (a chart library's inline size included).
// - srcdoc. Rebuilding an <iframe srcdoc> starts a load of that document, which races with rrweb
//   putting the recorded document (recorded separately) into the frame: whichever lands last is
//   shown, so a screenshot of the same moment was sometimes blank (upstream rrweb #1905). The
//   attribute is dropped (from snapshots, added nodes and attribute changes of iframes): the frame
//   shows the recorded document, as rrweb does for src.
// - Page views. rrweb writes a page view's Meta event, serialises the page, then writes its
//   FullSnapshot (milliseconds to a second later). Seeking between the two, rrweb's Replayer drops
//   everything before the Meta and has no snapshot to show yet: a wrong page (the previous one as it
//   was first built, or nothing) exactly where "last frame before the navigation" is asked for. A
//   later Meta event takes its snapshot's time, so until the new page exists the previous one is
//   shown as it ended (recording-summary.ts sizes that moment by the same rule). The first Meta
//   stays: it is the recording's start.
export const REPLAY_FIXES = String.raw`function replayFixes(events) {
  var widths = {}, heights = {}, canvases = {}, iframes = {};
  var seenMeta = false, meta = null;
  for (var m = 0; m < events.length; m++) {
    var ev = events[m];
    if (!ev) continue;
    if (ev.type === 4) {
      meta = seenMeta ? ev : null;
      seenMeta = true;
    } else if (ev.type === 2 && meta) {
      if (ev.timestamp > meta.timestamp) meta.timestamp = ev.timestamp;
      meta = null;
    }
  }
  function size(v) {
    var s = typeof v === 'number' ? String(v) : v;
    return typeof s === 'string' && /^\d{1,5}$/.test(s) ? s : null;
  }
  function noteCanvas(attrs) {
    if (!attrs || typeof attrs !== 'object') return;
    var w = size(attrs.width), h = size(attrs.height);
    if (w !== null) widths[w] = true;
    if (h !== null) heights[h] = true;
  }
  function visit(node, depth) {
    if (!node || typeof node !== 'object' || depth > 500) return;
    if (node.type === 2 && typeof node.tagName === 'string') {
      var tag = node.tagName.toLowerCase();
      if (tag === 'canvas') {
        canvases[node.id] = true;
        noteCanvas(node.attributes);
      } else if (tag === 'iframe') {
        iframes[node.id] = true;
        if (node.attributes && typeof node.attributes === 'object') delete node.attributes.srcdoc;
      }
    }
    var kids = node.childNodes;
    if (kids && kids.length) for (var i = 0; i < kids.length; i++) visit(kids[i], depth + 1);
  }
  for (var i = 0; i < events.length; i++) {
    var e = events[i], d = e && e.data;
    if (!d || typeof d !== 'object') continue;
    if (e.type === 2) visit(d.node, 0);
    else if (e.type === 3 && d.source === 0) {
      var adds = d.adds || [], attrs = d.attributes || [], j, a;
      for (j = 0; j < adds.length; j++) if (adds[j]) visit(adds[j].node, 0);
      for (j = 0; j < attrs.length; j++) {
        a = attrs[j];
        if (!a || !a.attributes || typeof a.attributes !== 'object') continue;
        if (canvases[a.id]) noteCanvas(a.attributes);
        if (iframes[a.id]) delete a.attributes.srcdoc;
      }
    }
  }
  var rules = [
    ':where(canvas){display:inline-block;width:300px;height:150px;overflow:hidden;color:transparent}',
    ':where(canvas) *{visibility:hidden}'
  ];
  var n = 0, k;
  for (k in widths) if (n++ < 500) rules.push(':where(canvas[width="' + k + '"]){width:' + Number(k) + 'px}');
  for (k in heights) if (n++ < 1000) rules.push(':where(canvas[height="' + k + '"]){height:' + Number(k) + 'px}');
  return rules;
}`;
