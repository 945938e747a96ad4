// rrweb-player's control bar as shipped is not usable without a mouse: the play and full-screen
// buttons are unnamed icons, the skip switch has no label, the progress bar is a plain div that no
// key reaches, and the replay frame has no title. `accessibleControls(player, totalMs)` names them,
// makes the progress bar a slider (arrows: 5 s, Page Up/Down: 30 s, Home/End) and lets Space play
// and pause from anywhere but a control that takes Space itself. Plain ES5 text, run in the browser.
export const ACCESSIBLE_CONTROLS = String.raw`function accessibleControls(player, totalMs) {
  var replayer = player.getReplayer();
  if (replayer.iframe) replayer.iframe.setAttribute('title', 'Recorded page');
  var playing = false;
  var now = 0;
  player.addEventListener('ui-update-player-state', function (e) { playing = e && e.payload === 'playing'; label(); });
  function clock(ms) {
    var s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    return (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (s % 60 < 10 ? '0' : '') + (s % 60);
  }
  var bar = document.querySelector('.rr-controller');
  var buttons = bar ? bar.querySelectorAll('.rr-controller__btns > button') : [];
  var playButton = buttons[0];
  var fullButton = buttons.length > 1 ? buttons[buttons.length - 1] : null;
  function label() {
    if (playButton) playButton.setAttribute('aria-label', playing ? 'Pause' : 'Play');
  }
  label();
  if (fullButton && !fullButton.textContent.trim()) fullButton.setAttribute('aria-label', 'Full screen');
  var skip = bar && bar.querySelector('.switch input');
  if (skip) {
    var text = skip.parentNode.querySelector('.label');
    skip.setAttribute('aria-label', text && text.textContent.trim() ? text.textContent.trim() : 'Skip inactive periods');
  }
  var progress = bar && bar.querySelector('.rr-progress');
  function position() {
    if (!progress) return;
    progress.setAttribute('aria-valuenow', String(Math.round(now)));
    progress.setAttribute('aria-valuetext', clock(now) + ' of ' + clock(totalMs));
  }
  player.addEventListener('ui-update-current-time', function (e) { now = e && typeof e.payload === 'number' ? e.payload : now; position(); });
  if (progress) {
    progress.setAttribute('role', 'slider');
    progress.setAttribute('tabindex', '0');
    progress.setAttribute('aria-label', 'Position in the recording');
    progress.setAttribute('aria-valuemin', '0');
    progress.setAttribute('aria-valuemax', String(Math.round(totalMs)));
    position();
    progress.addEventListener('keydown', function (e) {
      var steps = { ArrowLeft: -5000, ArrowDown: -5000, ArrowRight: 5000, ArrowUp: 5000, PageDown: -30000, PageUp: 30000 };
      var to = e.key === 'Home' ? 0 : e.key === 'End' ? totalMs : steps[e.key] !== undefined ? now + steps[e.key] : null;
      if (to === null) return;
      e.preventDefault();
      now = Math.min(totalMs, Math.max(0, to));
      player.goto(now, playing);
      position();
    });
  }
  document.addEventListener('keydown', function (e) {
    if (e.key !== ' ' || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var tag = t && t.tagName ? t.tagName.toLowerCase() : '';
    if (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || (t && t.isContentEditable)) return;
    e.preventDefault();
    player.toggle();
  });
}`;
