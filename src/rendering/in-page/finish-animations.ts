// Shared by the screenshot page and the hosted player (plain ES5 text, run in the browser): a seek
// rebuilds the replayed page and replays its changes at once, which sets off CSS transitions and
// animations that the recorded page had long finished. This shows them finished, in shadow roots
// too; an infinite animation cannot finish and stays as rrweb left it (paused while paused).
export const FINISH_ANIMATIONS = String.raw`function finishAnimations(root) {
  var list = root.getAnimations ? root.getAnimations() : [];
  for (var i = 0; i < list.length; i++) {
    try { list[i].finish(); } catch (e) { /* infinite */ }
  }
  var all = root.querySelectorAll('*');
  for (var j = 0; j < all.length; j++) if (all[j].shadowRoot) finishAnimations(all[j].shadowRoot);
}`;
