// Run in the viewer's browser by the hosted player. rrweb-player's control bar as shipped is not
// usable without a mouse: the play and full-screen buttons are unnamed icons, the skip switch has no
// label, the progress bar is a plain div that no key reaches, and the replay frame has no title.
// `accessibleControls(player)` names them, makes the progress bar a slider (arrows: 5 s,
// Page Up/Down: 30 s, Home/End) and lets Space play and pause from anywhere but a control that takes
// Space itself.
import type { PlayerUiEvent, RrwebPlayer } from './rrweb-shapes';

const STEPS: Record<string, number> = { ArrowLeft: -5000, ArrowDown: -5000, ArrowRight: 5000, ArrowUp: 5000, PageDown: -30000, PageUp: 30000 };

/** 75000 ms -> "1:15"; an hour and more -> "1:02:05". */
function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  return (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s % 60 < 10 ? '0' : '') + (s % 60);
}

export function accessibleControls(player: RrwebPlayer): void {
  // Read when used: a page that opened on a window learns the whole length once the rest is loaded.
  const total = () => player.getMetaData().totalTime;
  const replayer = player.getReplayer();
  if (replayer.iframe) replayer.iframe.setAttribute('title', 'Recorded page');
  let playing: boolean | undefined = false;
  let now = 0;
  player.addEventListener('ui-update-player-state', (e?: PlayerUiEvent) => {
    playing = e && e.payload === 'playing';
    label();
  });
  const bar = document.querySelector('.rr-controller');
  const buttons = bar ? bar.querySelectorAll('.rr-controller__btns > button') : [];
  const playButton = buttons[0] as Element | undefined;
  const fullButton = buttons.length > 1 ? buttons[buttons.length - 1] : null;
  function label(): void {
    if (playButton) playButton.setAttribute('aria-label', playing ? 'Pause' : 'Play');
  }
  label();
  if (fullButton && !(fullButton.textContent as string).trim()) fullButton.setAttribute('aria-label', 'Full screen');
  const skip = bar && bar.querySelector('.switch input');
  if (skip) {
    const text = (skip.parentNode as ParentNode).querySelector('.label');
    const named = text && (text.textContent as string).trim();
    skip.setAttribute('aria-label', named ? named : 'Skip inactive periods');
  }
  const progress = bar && bar.querySelector('.rr-progress');
  function position(): void {
    if (!progress) return;
    progress.setAttribute('aria-valuenow', String(Math.round(now)));
    progress.setAttribute('aria-valuetext', clock(now) + ' of ' + clock(total()));
  }
  player.addEventListener('ui-update-current-time', (e?: PlayerUiEvent) => {
    now = e && typeof e.payload === 'number' ? e.payload : now;
    position();
  });
  if (progress) {
    progress.setAttribute('role', 'slider');
    progress.setAttribute('tabindex', '0');
    progress.setAttribute('aria-label', 'Position in the recording');
    progress.setAttribute('aria-valuemin', '0');
    progress.setAttribute('aria-valuemax', String(Math.round(total())));
    position();
    progress.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      const to = e.key === 'Home' ? 0 : e.key === 'End' ? total() : STEPS[e.key] !== undefined ? now + STEPS[e.key] : null;
      if (to === null) return;
      e.preventDefault();
      now = Math.min(total(), Math.max(0, to));
      progress.setAttribute('aria-valuemax', String(Math.round(total())));
      player.goto(now, playing);
      position();
    });
  }
  document.addEventListener('keydown', (e) => {
    if (e.key !== ' ' || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target as HTMLElement | null;
    const tag = t && t.tagName ? t.tagName.toLowerCase() : '';
    if (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || (t && t.isContentEditable)) return;
    e.preventDefault();
    player.toggle();
  });
}
