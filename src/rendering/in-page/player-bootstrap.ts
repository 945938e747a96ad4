// The player page's only inline script (allowed by the CSP nonce). It reads the JSON config block,
// fetches the events from the same origin and mounts rrweb-player; tests observe window.__tapedeck.
// Kept as plain ES5 text so no compiler or coverage tool rewrites what the browser runs.
import { FINISH_ANIMATIONS } from './finish-animations';
import { ACCESSIBLE_CONTROLS } from './player-a11y';
import { REPLAY_FIXES } from './replay-fixes';
import { SKIP_BAD_EVENTS } from './skip-bad-events';

export const PLAYER_BOOTSTRAP = String.raw`(function () {
  'use strict';
  ${FINISH_ANIMATIONS}
  ${SKIP_BAD_EVENTS}
  ${REPLAY_FIXES}
  ${ACCESSIBLE_CONTROLS}
  var state = { ready: false, error: undefined, player: undefined };
  window.__tapedeck = state;
  var cfg = JSON.parse(document.getElementById('tapedeck-config').textContent);
  var mount = document.getElementById('player');
  var CONTROLLER_HEIGHT = 80;

  function fail(message) {
    state.error = message;
    var el = document.getElementById('status');
    el.textContent = message;
    el.hidden = false;
    document.body.classList.add('failed');
  }
  function frameSize() {
    var r = mount.getBoundingClientRect();
    return {
      width: Math.max(80, Math.floor(r.width)),
      height: Math.max(45, Math.floor(r.height) - (cfg.controls ? CONTROLLER_HEIGHT : 0))
    };
  }
  // Out-of-range positions start at the nearest end: the page cannot answer 422 once it is served.
  function startOffset(sel, first, last) {
    var length = last - first;
    var at = sel.kind === 'offset' ? (sel.value < 0 ? length + sel.value : sel.value)
      : sel.kind === 'percent' ? Math.round(length * sel.value / 100)
      : sel.value - first;
    return Math.min(length, Math.max(0, at));
  }

  var lib = window.rrwebPlayer;
  var Player = lib && (lib.Player || lib.default);
  if (typeof Player !== 'function') {
    fail('The player could not be loaded.');
    return;
  }
  fetch(cfg.eventsUrl, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } })
    .then(function (res) {
      if (!res.ok) throw new Error('The recording could not be loaded (HTTP ' + res.status + ').');
      return res.json().catch(function () { throw new Error('The recording could not be read.'); });
    }, function () {
      throw new Error('The recording could not be loaded (network error).');
    })
    .then(function (body) {
      var events = Array.isArray(body) ? body : body && Array.isArray(body.events) ? body.events : null;
      // Without a full snapshot rrweb shows an empty frame (the screenshot answers 422 then).
      var snapshot = events && events.some(function (e) { return e && e.type === 2; });
      if (!events || events.length < 2 || !snapshot) throw new Error('This recording has nothing to replay yet.');
      events = events.slice().sort(function (a, b) { return a.timestamp - b.timestamp; });
      // The control bar offers only speeds the player's speed parameter accepts (0.25 to 4).
      var speeds = [1, 2, 4];
      if (speeds.indexOf(cfg.speed) < 0) speeds = speeds.concat([cfg.speed]).sort(function (a, b) { return a - b; });
      var size = frameSize();
      var capture = cfg.mode === 'capture';
      var player = new Player({
        target: mount,
        props: {
          events: events,
          width: size.width,
          height: size.height,
          maxScale: capture ? 0 : 1,
          autoPlay: false,
          showController: cfg.controls,
          speed: cfg.speed,
          speedOption: speeds,
          mouseTail: !capture,
          UNSAFE_replayCanvas: false,
          insertStyleRules: replayFixes(events)
        }
      });
      state.player = player;
      skipBadEvents(player.getReplayer());
      accessibleControls(player, player.getMetaData().totalTime);
      // The speed prop reaches the replayer only; the control bar highlights speedOption[0] until told.
      player.setSpeed(cfg.speed);
      window.addEventListener('resize', function () {
        var s = frameSize();
        player.$set({ width: s.width, height: s.height });
        player.triggerResize();
      });
      // rrweb's Replayer sizes its frame to the first Meta event on a 0 ms timer and builds the first
      // snapshot on a 1 ms one: seeking after both keeps a later window resize. Like a screenshot,
      // the start shows the events at that very millisecond (rrweb applies those strictly before).
      return new Promise(function (resolve) { setTimeout(resolve, 1); }).then(function () {
        player.goto(startOffset(cfg.time, events[0].timestamp, events[events.length - 1].timestamp) + 1, cfg.autoplay);
        // Only a Meta event sizes and shows rrweb's frame: without one, the frame takes the player's size.
        var replayer = player.getReplayer();
        if (!replayer.iframe.offsetWidth) {
          replayer.handleResize(frameSize());
          player.triggerResize();
        }
        if (replayer.iframe.contentDocument) finishAnimations(replayer.iframe.contentDocument);
        state.ready = true;
        document.body.classList.add('ready');
      });
    })
    .catch(function (err) {
      fail(err && err.message ? err.message : 'The recording could not be played.');
    });
})();`;
