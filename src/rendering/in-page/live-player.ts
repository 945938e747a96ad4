// Run in the viewer's browser by the hosted player with live=true. The feed (live-feed.ts) sends the
// recording from its latest keyframe, then each stored batch; every part is prepared as a recorded
// one is (prepare-replay.ts, knowing the earlier parts). The player is built once a FullSnapshot has
// come, with rrweb's liveMode (playback never "finishes" at the last event), and plays from the
// newest event. rrweb 2.1's own "live" state cannot be paused or seeked (it ignores PAUSE and PLAY),
// so following is rrweb's playing state with its clock moved up to each batch's newest event as the
// batch arrives: events apply on the next frame instead of at their recorded spacing (latency over
// smoothness). Pause, -10 s and the slider seek in what was received; "Go live" plays from the
// newest event again. A batch's events rrweb would cast synchronously (older than where playback
// started) go to its virtual DOM and would stay there: a "flush" writes them to the frame.
import { finishAnimations } from './finish-animations';
import { endMessage, liveBarView } from './live-bar';
import { behindText, ClockOffset } from './live-clock';
import { openFeed, type FeedStatus } from './live-feed';
import { createReplayPreparer } from './prepare-replay';
import type { ReplayerInternals, ReplayEvent, RrwebPlayer } from './rrweb-shapes';
import { skipBadEvents } from './skip-bad-events';

/** window.__tapedeck.live: what tests and benchmarks read. Times are epoch ms. */
export interface LiveState {
  /** The feed is open (false while connecting or reconnecting, and once it ended). */
  connected: boolean;
  /** At the live edge: new events apply as they arrive. False while paused or playing back. */
  following: boolean;
  /** The feed's last status: false once the recording was idle for LIVE_IDLE_SECONDS (the session ended). */
  sessionLive: boolean | undefined;
  /** Why the feed is over: an `end` reason (deleted, link_expired, slow_viewer), or refused:<HTTP status>. */
  ended: string | undefined;
  /** How far behind the recorded page the view is: following, the delay of the last event applied; else from the playback position. */
  behindMs: number | undefined;
  /** Timestamp of the last event rrweb applied, and when (this page's clock). */
  lastAppliedTimestamp: number | undefined;
  lastAppliedAt: number | undefined;
  /** Server clock minus this page's clock, from the status messages. */
  clockOffsetMs: number;
  eventsReceived: number;
  eventsApplied: number;
  /** The id of the last `events` message (the stream sequence the view has everything up to). */
  lastEventId: string | undefined;
  /** Times the feed was opened again by the page itself (EventSource's own reconnects not counted). */
  reconnects: number;
  /** The last 200 delays from an event's timestamp to rrweb applying it while following (server clock). */
  lagsMs: number[];
}

type PlayerConstructor = new (options: { target: HTMLElement; props: Record<string, unknown> }) => RrwebPlayer;

export interface LiveOptions {
  eventsUrl: string;
  /** Whether the page has the live bar's buttons (it shows the badge either way, except in capture mode). */
  controls: boolean;
  speed: number;
  mount: HTMLElement;
  Player: PlayerConstructor;
  frameSize(): { width: number; height: number };
  /** Puts a message in the page's alert box (and window.__tapedeck.error). */
  fail(message: string): void;
  /** The replay is shown: at the live edge, ready to follow. */
  ready(player: RrwebPlayer): void;
  /** Values the sanitiser removed or rewrote in a part. */
  sanitized(count: number): void;
}

const LAGS_KEPT = 200;
const BACK_MS = 10_000;
const TICK_MS = 250;
const SLIDER_KEYS: Record<string, number> = {
  ArrowLeft: -1000,
  ArrowDown: -1000,
  ArrowRight: 1000,
  ArrowUp: 1000,
  PageDown: -10_000,
  PageUp: 10_000,
  Home: 0,
  End: 0,
};

const byId = <T extends HTMLElement>(id: string): T | null => document.getElementById(id) as T | null;

export function startLive(o: LiveOptions): LiveState {
  const live: LiveState = {
    connected: false,
    following: true,
    sessionLive: undefined,
    ended: undefined,
    behindMs: undefined,
    lastAppliedTimestamp: undefined,
    lastAppliedAt: undefined,
    clockOffsetMs: 0,
    eventsReceived: 0,
    eventsApplied: 0,
    lastEventId: undefined,
    reconnects: 0,
    lagsMs: [],
  };
  const clock = new ClockOffset();
  const prepare = createReplayPreparer();
  /** The array rrweb was given as insertStyleRules: rules found later are added to it (and to the frame). */
  const rules: string[] = [];
  const known: Record<string, boolean> = {};
  let waiting: ReplayEvent[] = [];
  let player: RrwebPlayer | undefined;
  let replayer: ReplayerInternals | undefined;
  let first = 0;
  /** Where playback can go back to: the first FullSnapshot received (before it rrweb has no page). */
  let earliest = 0;
  let newest = -Infinity;
  /** True while rrweb replays synchronously for a seek: those casts are no live deliveries. */
  let seeking = false;
  let dragging = false;
  /** Set while the feed waits to be tried again after a refusal (429, 5xx). */
  let retryNote: { what: string; at: number } | undefined;

  const bar = byId('live-bar');
  const badge = byId('live-badge');
  const text = byId('live-text');
  const announce = byId('live-announce');
  const toggle = byId<HTMLButtonElement>('live-toggle');
  const back = byId<HTMLButtonElement>('live-back');
  const go = byId<HTMLButtonElement>('live-go');
  const slider = byId<HTMLInputElement>('live-position');

  const feed = openFeed(o.eventsUrl, {
    status(s: FeedStatus, receivedAt: number) {
      if (typeof s.serverTime === 'number') clock.add(s.serverTime, receivedAt);
      live.clockOffsetMs = clock.ms;
      live.sessionLive = s.live;
      render();
    },
    events(list: unknown[], id: string) {
      if (id) live.lastEventId = id;
      live.eventsReceived += list.length;
      const part = prepare(list);
      o.sanitized(part.sanitized);
      addRules(part.insertStyleRules);
      const events = part.events as ReplayEvent[];
      if (player) add(events);
      else {
        waiting = waiting.concat(events);
        build();
      }
      render();
    },
    connection(open: boolean) {
      live.connected = open;
      live.reconnects = feed.reconnects;
      if (open) retryNote = undefined;
      render();
    },
    retrying(status: number, ms: number) {
      retryNote = { what: status === 429 ? 'Too many live viewers' : 'The live feed is unavailable', at: Date.now() + ms };
      render();
    },
    end(reason: string) {
      live.connected = false;
      live.ended = reason;
      if (reason === 'deleted' && player) {
        // The recording is gone: so is what this page showed of it.
        try {
          player.$destroy();
        } catch {
          // already torn down
        }
        o.mount.textContent = '';
        player = replayer = undefined;
      }
      if (!player) o.fail(endMessage(reason));
      render();
    },
  });

  function addRules(all: string[]): void {
    const fresh = all.filter((r) => !known[r]);
    for (const r of fresh) {
      known[r] = true;
      rules.push(r);
    }
    // rrweb puts its rules in a <style> before <head> when it builds a page: later rules join it.
    const doc = replayer && replayer.iframe.contentDocument;
    const style = doc && doc.documentElement && doc.documentElement.firstElementChild;
    const sheet = style && style.tagName === 'STYLE' ? (style as HTMLStyleElement).sheet : null;
    if (!sheet) return;
    for (const r of fresh) {
      try {
        sheet.insertRule(r, sheet.cssRules.length);
      } catch {
        // a rule this browser does not parse
      }
    }
  }

  function build(): void {
    if (!waiting.some((e) => e && e.type === 2)) return; // rrweb shows nothing without a FullSnapshot
    const events = waiting.sort((a, b) => a.timestamp - b.timestamp);
    waiting = [];
    first = events[0].timestamp;
    earliest = (events.find((e) => e.type === 2) as ReplayEvent).timestamp - first;
    newest = events[events.length - 1].timestamp;
    const size = o.frameSize();
    const p = new o.Player({
      target: o.mount,
      props: {
        events,
        width: size.width,
        height: size.height,
        maxScale: 1,
        autoPlay: false,
        showController: false,
        liveMode: true,
        skipInactive: false,
        speed: o.speed,
        speedOption: [o.speed],
        mouseTail: true,
        UNSAFE_replayCanvas: false,
        insertStyleRules: rules,
      },
    });
    player = p;
    const r = p.getReplayer();
    replayer = r;
    skipBadEvents(r);
    r.iframe.setAttribute('title', 'Recorded page (live)');
    r.on('event-cast', (e) => applied(e as ReplayEvent));
    window.addEventListener('resize', () => {
      if (player !== p) return;
      const s = o.frameSize();
      p.$set({ width: s.width, height: s.height });
      p.triggerResize();
    });
    // As the recorded player: rrweb sizes its frame on a 0 ms timer and builds the first snapshot on a 1 ms one.
    setTimeout(() => {
      if (player !== p) return;
      goLive();
      if (!r.iframe.offsetWidth) {
        r.handleResize(o.frameSize());
        p.triggerResize();
      }
      o.ready(p);
      render();
    }, 1);
  }

  function add(events: ReplayEvent[]): void {
    const p = player as RrwebPlayer;
    const r = replayer as ReplayerInternals;
    for (const e of events) {
      p.addEvent(e);
      if (e.timestamp > newest) newest = e.timestamp;
    }
    if (live.following) catchUp();
    // rrweb adds events on a microtask; one older than where playback started is cast synchronously
    // into its virtual DOM, which only a seek would write out.
    void Promise.resolve().then(() => {
      if (replayer === r && r.usingVirtualDom) r.emitter.emit('flush');
    });
  }

  /** Moves rrweb's clock up to the newest event: what was received applies on the next frame. */
  function catchUp(): void {
    const r = replayer;
    if (!r) return;
    const target = newest - r.service.state.context.baselineTime;
    if (r.timer.timeOffset < target) r.timer.timeOffset = target;
  }

  function applied(e: ReplayEvent): void {
    const now = Date.now();
    live.eventsApplied++;
    live.lastAppliedTimestamp = e.timestamp;
    live.lastAppliedAt = now;
    if (seeking || !live.following) return;
    const lag = clock.serverNow(now) - e.timestamp;
    live.behindMs = Math.max(0, lag);
    live.lagsMs.push(lag);
    if (live.lagsMs.length > LAGS_KEPT) live.lagsMs.shift();
  }

  /** Position in ms from the first event received, within what was received. */
  function position(): number {
    if (!replayer) return 0;
    return Math.min(Math.max(0, newest - first), Math.max(0, replayer.getCurrentTime()));
  }
  const playing = () => !!replayer && replayer.service.state.value === 'playing';

  /**
   * Shows the moment `ms` (from the first event), playing on or not. Held within the FullSnapshot
   * and the newest event (a seek that applied no snapshot after rrweb reset its node map, as seeking
   * back does, would leave the next seek without a page), and +0.5 as the recorded player does: rrweb
   * applies the events strictly before the position, but starts at a Meta at or before it.
   */
  function seekTo(ms: number, play: boolean): void {
    const r = replayer;
    if (!r) return;
    const to = Math.min(Math.max(earliest, newest - first), Math.max(earliest, ms)) + 0.5;
    seeking = true;
    try {
      if (play) r.play(to);
      else r.pause(to);
    } finally {
      seeking = false;
    }
    if (r.iframe.contentDocument) finishAnimations(r.iframe.contentDocument);
  }

  function goLive(): void {
    live.following = true;
    seekTo(newest - first, true);
    live.behindMs = 0; // at the newest event received, until the next one says how late it came
    render();
  }

  function pause(): void {
    live.following = false;
    if (replayer && playing()) replayer.pause();
    render();
  }

  function play(): void {
    const at = position();
    if (at >= newest - first) return goLive();
    live.following = false;
    seekTo(at, true);
    render();
  }

  function jump(ms: number): void {
    const keepPlaying = playing();
    live.following = false;
    seekTo(ms, keepPlaying);
    render();
  }

  function render(): void {
    const r = replayer;
    const now = Date.now();
    if (r && !live.following) {
      // Playing back at least as fast as time passes reaches the newest event: follow from there.
      if (playing() && position() >= newest - first && !live.ended) {
        live.following = true;
        catchUp();
      } else live.behindMs = Math.max(0, clock.serverNow(now) - (first + position()));
    }
    if (!bar) return;
    bar.hidden = false;
    const view = liveBarView({
      ended: live.ended,
      sessionLive: live.sessionLive,
      following: live.following,
      connected: live.connected,
      retry: retryNote && { what: retryNote.what, inMs: retryNote.at - now },
      shown: !!r,
      playing: playing(),
      behindText: behindText(live.behindMs || 0),
      heard: live.eventsReceived > 0 || live.sessionLive !== undefined,
    });
    if (bar.className !== view.cls) bar.className = view.cls;
    if (badge && badge.textContent !== view.badge) badge.textContent = view.badge;
    if (text && text.textContent !== view.text) text.textContent = view.text;
    if (announce && announce.textContent !== view.said) announce.textContent = view.said;
    if (toggle) {
      const label = playing() ? 'Pause' : 'Play';
      if (toggle.textContent !== label) toggle.textContent = label;
      toggle.disabled = !r;
    }
    if (back) back.disabled = !r;
    if (go) go.disabled = !r || live.following;
    if (slider) {
      slider.disabled = !r;
      const min = String(Math.round(earliest));
      // At least a millisecond wide: a range whose ends meet shows its thumb at the start, not the live edge.
      const max = String(Math.max(Math.round(earliest) + 1, Math.round(newest - first)));
      if (slider.min !== min) slider.min = min;
      if (slider.max !== max) slider.max = max;
      if (!dragging) slider.value = live.following ? max : String(Math.round(position()));
      slider.setAttribute('aria-valuetext', r ? behindText(live.behindMs || 0) : 'nothing received yet');
    }
  }

  if (toggle) toggle.addEventListener('click', () => (playing() ? pause() : play()));
  if (back) back.addEventListener('click', () => jump(position() - BACK_MS));
  if (go) go.addEventListener('click', () => goLive());
  if (slider) {
    // Any position (a recording a second old still shows its thumb at the live edge); keys move by
    // seconds: arrows 1 s, Page Up/Down 10 s, Home to the first page received, End goes live.
    slider.step = 'any';
    slider.addEventListener('pointerdown', () => (dragging = true));
    slider.addEventListener('pointerup', () => (dragging = false));
    slider.addEventListener('input', () => jump(Number(slider.value)));
    slider.addEventListener('keydown', (e) => {
      const step = SLIDER_KEYS[e.key];
      if (step === undefined || !replayer) return;
      e.preventDefault();
      if (e.key === 'End') goLive();
      else jump(e.key === 'Home' ? earliest : position() + step);
    });
  }
  if (o.controls) {
    document.addEventListener('keydown', (e) => {
      if (e.key !== ' ' || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || !replayer) return;
      const t = e.target as HTMLElement | null;
      const tag = t && t.tagName ? t.tagName.toLowerCase() : '';
      if (tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || (t && t.isContentEditable)) return;
      e.preventDefault();
      if (playing()) pause();
      else play();
    });
  }
  setInterval(render, TICK_MS);
  render();
  return live;
}
