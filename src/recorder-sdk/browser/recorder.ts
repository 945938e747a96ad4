// The Tapedeck browser recorder, served at /sdk/recorder.js (an IIFE exposing the global `Tapedeck`).
// A script tag with data-public-key starts recording at once; otherwise call Tapedeck.start().
// State lives on a global symbol, so a page that loads the script twice still records once.
import { type CaptureOptions, type ConsoleCaptureOptions, type NetworkCaptureOptions, capturePlugins } from './capture-plugins';
import { isUuid, uuid } from './ids';
import { httpScheme } from './protocol';
import { RECORDER_VERSION, type RecordOptions } from './rrweb-recording';
import { RecorderSession, type RecorderStats } from './session';
import { MemoryStore, RECORDING_ID_KEY, SafeStore, pendingKey, sequenceKey } from './storage';
import { TabCheck } from './tab-check';

export type { ConsoleCaptureOptions, NetworkCaptureOptions, RecordOptions, RecorderStats };

export interface StartOptions extends CaptureOptions {
  /** A public write key (public_key_svc_...). */
  publicKey: string;
  /** Base URL of the Tapedeck server. Default: the origin the script was loaded from. */
  serverUrl?: string;
  /** Recording metadata, sent in the first `recording-meta` event. */
  meta?: Record<string, unknown>;
  /** rrweb record() options; they override the defaults (maskAllInputs, slimDOMOptions, inlineStylesheet). */
  recordOptions?: RecordOptions;
  /** 'websocket' (default, with HTTP fallback) or 'http' (POST only). */
  transport?: 'websocket' | 'http';
}

interface Shared {
  session: RecorderSession | null;
  pendingMeta: Record<string, unknown>;
  store: SafeStore | null;
  scriptOrigin: string | null;
  tabs: TabCheck | null;
}

const SHARED_KEY = Symbol.for('tapedeck.recorder');
/** How long a page that found a recording id in sessionStorage waits for another tab to claim it. */
const TAB_CHECK_MS = 150;

function shared(): Shared {
  const g = globalThis as unknown as Record<symbol, Shared | undefined>;
  let s = g[SHARED_KEY];
  if (!s) {
    s = { session: null, pendingMeta: {}, store: null, scriptOrigin: null, tabs: null };
    g[SHARED_KEY] = s;
  }
  return s;
}

function store(): SafeStore {
  const s = shared();
  if (!s.store) {
    let inner: Storage | null = null;
    try {
      inner = window.sessionStorage;
      const probe = '__tapedeck_probe__';
      inner.setItem(probe, '1');
      inner.removeItem(probe);
    } catch {
      inner = null;
    }
    s.store = new SafeStore(inner ?? new MemoryStore());
  }
  return s.store;
}

function storedRecordingId(create: boolean): string | null {
  const id = store().getItem(RECORDING_ID_KEY);
  if (isUuid(id)) return id;
  return create ? freshRecordingId() : null;
}

/** A new recording id for this tab, kept in its sessionStorage. */
function freshRecordingId(): string {
  const fresh = uuid();
  store().setItem(RECORDING_ID_KEY, fresh);
  return fresh;
}

/** Answers other tabs' questions while this page is shown (see tab-check.ts). */
function tabs(): TabCheck {
  const s = shared();
  if (!s.tabs) {
    const check = new TabCheck(store(), () => [s.session?.recordingId, store().getItem(RECORDING_ID_KEY)]);
    s.tabs = check;
    window.addEventListener('pagehide', () => check.close());
    window.addEventListener('pageshow', (ev) => {
      if (ev.persisted) check.open();
    });
  }
  return s.tabs;
}

/** This tab is a copy of one that records `copied`: start a recording of its own. */
function replaceCopiedRecordingId(copied: string): string {
  store().removeItem(sequenceKey(copied));
  store().removeItem(pendingKey(copied));
  return freshRecordingId();
}

function normaliseServerUrl(raw: string | undefined): string {
  const base = raw ?? shared().scriptOrigin ?? location.origin;
  const url = new URL(base, location.href);
  url.protocol = httpScheme(url.protocol);
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '');
}

/**
 * Whether a same-origin page around this frame runs the recorder (or has its tag, not yet run).
 * rrweb there records this frame as part of that page; a second recorder here would write this
 * frame's snapshot into the same recording (the frames share sessionStorage, so the same id) and the
 * replay would apply its changes to the outer page's nodes.
 */
function recordedByOuterPage(): boolean {
  return sameOriginOuterPages().some(
    (outer) => (outer as unknown as Record<symbol, unknown>)[SHARED_KEY] || outer.document.querySelector('script[data-public-key][src*="/sdk/recorder.js"]'),
  );
}

/**
 * A same-origin page around this frame that is still being parsed: whether it will record this
 * frame (its tag may come after the frame, below a slow script) is not known until it is parsed.
 */
function outerPageStillLoading(): Document | undefined {
  return sameOriginOuterPages().find((outer) => outer.document.readyState === 'loading')?.document;
}

/**
 * The pages around this frame, innermost first, up to the first of another origin: rrweb there
 * cannot see into this frame (nor can its page be read), so it and those above it are left out.
 */
function sameOriginOuterPages(): Window[] {
  const pages: Window[] = [];
  for (let w: Window = window; w.parent && w.parent !== w; w = w.parent) {
    try {
      void w.parent.document.readyState; // throws for another origin
    } catch {
      break;
    }
    pages.push(w.parent);
  }
  return pages;
}

/** Starts recording (once per page). Returns the recording id. */
export function start(options: StartOptions): string {
  const s = shared();
  if (s.session) {
    console.warn('[tapedeck] already recording; use Tapedeck.addMeta() to add metadata');
    return s.session.recordingId;
  }
  if (!options || typeof options.publicKey !== 'string' || options.publicKey === '') {
    throw new Error('[tapedeck] start() needs a publicKey');
  }
  if (recordedByOuterPage()) {
    console.info('[tapedeck] not recording this frame on its own: the page around it records it');
    return storedRecordingId(true) ?? '';
  }
  const stored = storedRecordingId(false);
  const recordingId = stored ?? freshRecordingId();
  const serverUrl = normaliseServerUrl(options.serverUrl);
  const recordOptions = options.recordOptions ?? {};
  const pagePlugins = Array.isArray(recordOptions.plugins) ? recordOptions.plugins : [];
  const session = new RecorderSession({
    recordingId,
    publicKey: options.publicKey,
    serverUrl,
    meta: { ...s.pendingMeta, ...(options.meta ?? {}) },
    recordOptions: { ...recordOptions, plugins: [...capturePlugins(options, serverUrl, pagePlugins), ...pagePlugins] },
    transport: options.transport === 'http' ? 'http' : 'websocket',
    store: store(),
    onSelfStop: () => {
      if (s.session === session) s.session = null;
    },
  });
  s.pendingMeta = {};
  s.session = session;
  // A stored id may have been copied from another tab that still records it (window.open, duplicated
  // tab): ask first, recording meanwhile; a fresh id needs no question.
  const check = tabs();
  check.open();
  const decideNow = stored ? check.ask(stored, TAB_CHECK_MS, (taken) => session.begin(taken ? replaceCopiedRecordingId(stored) : stored)) : null;
  session.start(decideNow);
  if (!decideNow) session.begin(recordingId);
  return recordingId;
}

/** Adds recording metadata (another `recording-meta` event); before start() it joins the first one. */
export function addMeta(meta: Record<string, unknown>): void {
  const s = shared();
  if (s.session) s.session.addMeta(meta);
  else s.pendingMeta = { ...s.pendingMeta, ...meta };
}

/**
 * Stops recording and, within a few seconds, delivers what is left. With `resetRecordingId`, the next
 * start() in this tab begins a new recording.
 */
export function stop(resetRecordingId = false): Promise<void> {
  const s = shared();
  const session = s.session;
  s.session = null;
  if (resetRecordingId) {
    const id = session?.recordingId ?? storedRecordingId(false);
    store().removeItem(RECORDING_ID_KEY);
    if (id) store().removeItem(pendingKey(id));
  }
  if (!session) return Promise.resolve();
  return session.stop().then(() => {
    if (resetRecordingId) session.forget();
  });
}

/** The recording id of this tab (created if needed, so it can be read before start()). */
export function getRecordingId(): string | null {
  return shared().session?.recordingId ?? storedRecordingId(true);
}

/** Resolves when everything recorded so far is acknowledged by the server. */
export function flush(): Promise<void> {
  return shared().session?.flush() ?? Promise.resolve();
}

export function stats(): RecorderStats | null {
  return shared().session?.stats() ?? null;
}

export const version = RECORDER_VERSION;

/** A script attribute that turns something on: present and not a "no" (`data-network`, `data-network="true"`). */
const isOn = (value: string | null) => value !== null && !isOff(value);
const isOff = (value: string | null) => value !== null && /^(false|off|no|0)$/i.test(value.trim());

function autostart(): void {
  if (typeof document === 'undefined') return;
  const script = document.currentScript;
  if (!(script instanceof HTMLScriptElement) || !script.src) return;
  const s = shared();
  try {
    s.scriptOrigin ??= new URL(script.src, location.href).origin;
  } catch {
    // keep the page origin
  }
  const publicKey = script.getAttribute('data-public-key');
  if (!publicKey || s.session) return;
  const options: StartOptions = {
    publicKey,
    serverUrl: script.getAttribute('data-server-url') || undefined,
    transport: script.getAttribute('data-transport') === 'http' ? 'http' : 'websocket',
    console: !isOff(script.getAttribute('data-console')),
    network: isOn(script.getAttribute('data-network')),
  };
  const begin = () => {
    if (shared().session) return;
    try {
      start(options);
    } catch (err) {
      console.error('[tapedeck] could not start recording', err);
    }
  };
  // In a frame whose page is still being parsed, decide once that page is: starting now, before its
  // own tag ran, wrote this frame's snapshot and changes into the page's recording as well.
  const outer = outerPageStillLoading();
  if (outer) outer.addEventListener('DOMContentLoaded', begin, { once: true });
  else begin();
}

autostart();
