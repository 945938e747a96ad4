// The player page's only inline script (admitted by the CSP nonce), bundled by scripts/build-sdk.mjs
// into dist/in-page/player-bootstrap.js. It reads the JSON config block, fetches the events from the
// same origin and mounts rrweb-player, or with live=true hands over to live-player.ts (the live feed);
// tests observe window.__tapedeck.
import { finishAnimations } from './finish-animations';
import { type LiveState, startLive } from './live-player';
import { accessibleControls } from './player-a11y';
import type { PlayerPageConfig } from './player-config';
import { prepareReplay } from './prepare-replay';
import { appendLater, earlierUrl, laterUrl, openingWindow, prependEarlier, startOffset, windowShows } from './progressive-load';
import type { RrwebPlayer } from './rrweb-shapes';
import { skipBadEvents } from './skip-bad-events';

interface PlayerState {
  ready: boolean;
  /** What is loaded: the whole recording, or only a window from the start time's keyframe (the rest follows). */
  loaded: 'all' | 'window';
  /** Values the replay sanitiser removed or rewrote in the recording (prepare-replay.ts). */
  sanitized: number;
  error: string | undefined;
  player: RrwebPlayer | undefined;
  /** With live=true: the live view's state (live-player.ts). */
  live?: LiveState;
}

interface ReplayEvent {
  type: number;
  timestamp: number;
}

type PlayerConstructor = new (options: { target: HTMLElement; props: Record<string, unknown> }) => RrwebPlayer;

declare global {
  interface Window {
    __tapedeck: PlayerState;
    /** rrweb-player's UMD bundle, loaded by the script tag before this one. */
    rrwebPlayer?: { Player?: PlayerConstructor; default?: PlayerConstructor };
  }
}

const CONTROLLER_HEIGHT = 80;

function main(): void {
  const state: PlayerState = { ready: false, loaded: 'all', sanitized: 0, error: undefined, player: undefined };
  window.__tapedeck = state;
  const cfg = JSON.parse((document.getElementById('tapedeck-config') as HTMLElement).textContent as string) as PlayerPageConfig;
  const mount = document.getElementById('player') as HTMLElement;

  function fail(message: string): void {
    state.error = message;
    const el = document.getElementById('status') as HTMLElement;
    el.textContent = message;
    el.hidden = false;
    document.body.classList.add('failed');
  }
  function frameSize(): { width: number; height: number } {
    const r = mount.getBoundingClientRect();
    return {
      width: Math.max(80, Math.floor(r.width)),
      height: Math.max(45, Math.floor(r.height) - (cfg.controls ? CONTROLLER_HEIGHT : 0)),
    };
  }

  /** The events at `url` (a JSON array, or rrweb Cloud's { events }), null when the body holds none. */
  function load(url: string): Promise<ReplayEvent[] | null> {
    return fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } })
      .then(
        (res) => {
          if (!res.ok) throw new Error('The recording could not be loaded (HTTP ' + res.status + ').');
          return res.json().catch(() => {
            throw new Error('The recording could not be read.');
          }) as Promise<unknown>;
        },
        () => {
          throw new Error('The recording could not be loaded (network error).');
        },
      )
      .then((body: unknown) => {
        const listed = body as { events?: unknown } | null;
        return (Array.isArray(body) ? body : listed && Array.isArray(listed.events) ? listed.events : null) as ReplayEvent[] | null;
      });
  }

  /**
   * The rest of a recording opened on a window: everything before it put in front, everything after
   * it appended. A custom event at the end makes rrweb-player read the longer recording's length; a
   * replay playing on is restarted from where it is so that it plays the appended events too. The
   * viewer keeps the moment shown.
   */
  function loadRest(player: RrwebPlayer, firstTs: number, lastTs: number, before: boolean, after: boolean): void {
    const events = () => player.getReplayer().service.state.context.events;
    const parts = [
      before
        ? load(earlierUrl(cfg.eventsUrl, firstTs)).then((earlier) => {
            if (!earlier || !earlier.length) return;
            earlier.sort((a, b) => a.timestamp - b.timestamp);
            state.sanitized += prepareReplay(earlier).sanitized;
            prependEarlier(events(), earlier);
          })
        : Promise.resolve(),
      after
        ? load(laterUrl(cfg.eventsUrl, lastTs)).then((later) => {
            if (!later || !later.length) return;
            later.sort((a, b) => a.timestamp - b.timestamp);
            state.sanitized += prepareReplay(later).sanitized;
            if (!appendLater(events(), later)) return;
            const replayer = player.getReplayer();
            if (replayer.service.state.value === 'playing') replayer.play(replayer.getCurrentTime());
          })
        : Promise.resolve(),
    ];
    void Promise.all(parts.map((p) => p.catch(() => undefined))).then(() => {
      // Seeking outside what loaded shows the nearest moment it has.
      const all = events();
      player.addEvent({ type: 5, timestamp: all[all.length - 1].timestamp, data: { tag: 'tapedeck-loaded', payload: {} } });
      state.loaded = 'all';
    });
  }

  // A window first when the page starts later in a recording it knows the span of (the whole
  // recording when that window cannot be read).
  // Between a keyframe's Meta and its snapshot the previous page shows, which the window does not
  // hold: then too the whole recording (as a screenshot does, screenshot/page-window.ts).
  // Asked for at once: this script runs before rrweb-player's (the page's last), so the events
  // arrive while that script is read and run, not after it.
  let opening = cfg.live ? undefined : openingWindow(cfg);
  const whole = () => {
    opening = undefined;
    return load(cfg.eventsUrl);
  };
  const loading: Promise<ReplayEvent[] | null> = cfg.live
    ? Promise.resolve(null)
    : opening
      ? load(opening.url).then(
          (events) => (events && opening && windowShows(events, opening.at) ? events : whole()),
          () => whole(),
        )
      : load(cfg.eventsUrl);
  loading.catch(() => undefined); // answered below, once the player's script has run

  afterParsing(() => {
    const lib = window.rrwebPlayer;
    const Player = lib && (lib.Player || lib.default);
    if (typeof Player !== 'function') {
      fail('The player could not be loaded.');
      return;
    }
    if (cfg.live) {
      state.live = startLive({
        eventsUrl: cfg.eventsUrl,
        controls: cfg.controls,
        speed: cfg.speed,
        mount,
        Player,
        // The live bar is outside #player, which keeps the rest of the page.
        frameSize: () => {
          const r = mount.getBoundingClientRect();
          return { width: Math.max(80, Math.floor(r.width)), height: Math.max(45, Math.floor(r.height)) };
        },
        fail,
        ready(player) {
          state.player = player;
          state.ready = true;
          document.body.classList.add('ready');
        },
        sanitized(count) {
          state.sanitized += count;
        },
      });
      return;
    }
    loading
      .then((loaded: ReplayEvent[] | null) => {
        let events = loaded;
        // Without a full snapshot rrweb shows an empty frame (the screenshot answers 422 then).
        const snapshot = events && events.some((e) => e && e.type === 2);
        if (!events || events.length < 2 || !snapshot) throw new Error('This recording has nothing to replay yet.');
        events = events.slice().sort((a, b) => a.timestamp - b.timestamp);
        // The control bar offers only speeds the player's speed parameter accepts (0.25 to 4).
        let speeds = [1, 2, 4];
        if (speeds.indexOf(cfg.speed) < 0) speeds = speeds.concat([cfg.speed]).sort((a, b) => a - b);
        const prepared = prepareReplay(events);
        state.sanitized = prepared.sanitized;
        const size = frameSize();
        const capture = cfg.mode === 'capture';
        const player = new Player({
          target: mount,
          props: {
            events,
            width: size.width,
            height: size.height,
            maxScale: capture ? 0 : 1,
            autoPlay: false,
            showController: cfg.controls,
            speed: cfg.speed,
            speedOption: speeds,
            mouseTail: !capture,
            UNSAFE_replayCanvas: false,
            insertStyleRules: prepared.insertStyleRules,
          },
        });
        state.player = player;
        skipBadEvents(player.getReplayer());
        accessibleControls(player);
        // The speed prop reaches the replayer only; the control bar highlights speedOption[0] until told.
        player.setSpeed(cfg.speed);
        window.addEventListener('resize', () => {
          const s = frameSize();
          player.$set({ width: s.width, height: s.height });
          player.triggerResize();
        });
        // rrweb's Replayer sizes its frame to the first Meta event on a 0 ms timer and builds the first
        // snapshot on a 1 ms one: seeking after both keeps a later window resize. Like a screenshot,
        // the start shows the events at that very millisecond (rrweb applies those strictly before).
        const sorted = events;
        return new Promise((resolve) => setTimeout(resolve, 1)).then(() => {
          // +0.5, not +1: see screenshot-renderer.ts (a keyframe's Meta at the next millisecond).
          const first = sorted[0].timestamp;
          player.goto((opening ? Math.max(0, opening.at - first) : startOffset(cfg.time, first, sorted[sorted.length - 1].timestamp)) + 0.5, cfg.autoplay);
          // Only a Meta event sizes and shows rrweb's frame: without one, the frame takes the player's size.
          const replayer = player.getReplayer();
          if (!replayer.iframe.offsetWidth) {
            replayer.handleResize(frameSize());
            player.triggerResize();
          }
          if (replayer.iframe.contentDocument) finishAnimations(replayer.iframe.contentDocument);
          state.ready = true;
          document.body.classList.add('ready');
          const last = sorted[sorted.length - 1].timestamp;
          const before = !!opening && !!cfg.span && first > cfg.span.first;
          const after = !!opening && opening.to !== undefined;
          if (before || after) {
            state.loaded = 'window';
            loadRest(player, first, last, before, after);
          }
        });
      })
      .catch((err: { message?: string } | undefined) => {
        fail(err && err.message ? err.message : 'The recording could not be played.');
      });
  });
}

/** Runs `f` once the page is parsed: every script before it (rrweb-player's) has run. */
function afterParsing(f: () => void): void {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', f, { once: true });
  else f();
}

main();
