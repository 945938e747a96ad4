// Run in the browser by the screenshot page and the hosted player: a seek rebuilds the replayed page
// and replays its changes at once, which sets off CSS transitions and animations that the recorded
// page had long finished. This shows them finished, in shadow roots too; an infinite animation
// cannot finish and stays as rrweb left it (paused while paused).
export function finishAnimations(root: Document | ShadowRoot): void {
  const list = root.getAnimations ? root.getAnimations() : [];
  for (let i = 0; i < list.length; i++) {
    try {
      list[i].finish();
    } catch {
      // infinite
    }
  }
  const all = root.querySelectorAll('*');
  for (let j = 0; j < all.length; j++) {
    const shadow = all[j].shadowRoot;
    if (shadow) finishAnimations(shadow);
  }
}
