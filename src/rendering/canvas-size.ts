// Shared by the screenshot page and the hosted player (plain ES5 text, run in the browser). rrweb's
// replay frame runs no scripts (its sandbox lacks allow-scripts), and a <canvas> with scripting
// disabled is not a canvas but its fallback content: an inline box that ignores its width and height
// attributes, so a 400x200 chart collapsed to nothing and everything below it moved up. These style
// rules (rrweb's insertStyleRules, put before the page's own styles) give each canvas the box its
// attributes gave it on the live page, blank, with its fallback content hidden. They have zero
// specificity (:where), so any size or display the page's own CSS or style attribute sets wins, as
// it did live (a chart library's style="width:…;height:…" included).
export const CANVAS_SIZE_RULES = String.raw`function canvasSizeRules(events) {
  var widths = {}, heights = {}, canvases = {};
  function size(v) {
    var s = typeof v === 'number' ? String(v) : v;
    return typeof s === 'string' && /^\d{1,5}$/.test(s) ? s : null;
  }
  function note(attrs) {
    if (!attrs || typeof attrs !== 'object') return;
    var w = size(attrs.width), h = size(attrs.height);
    if (w !== null) widths[w] = true;
    if (h !== null) heights[h] = true;
  }
  function visit(node, depth) {
    if (!node || typeof node !== 'object' || depth > 500) return;
    if (node.type === 2 && typeof node.tagName === 'string' && node.tagName.toLowerCase() === 'canvas') {
      canvases[node.id] = true;
      note(node.attributes);
    }
    var kids = node.childNodes;
    if (kids && kids.length) for (var i = 0; i < kids.length; i++) visit(kids[i], depth + 1);
  }
  for (var i = 0; i < events.length; i++) {
    var e = events[i], d = e && e.data;
    if (!d || typeof d !== 'object') continue;
    if (e.type === 2) visit(d.node, 0);
    else if (e.type === 3 && d.source === 0) {
      var adds = d.adds || [], attrs = d.attributes || [], j;
      for (j = 0; j < adds.length; j++) if (adds[j]) visit(adds[j].node, 0);
      for (j = 0; j < attrs.length; j++) if (attrs[j] && canvases[attrs[j].id]) note(attrs[j].attributes);
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
