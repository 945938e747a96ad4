// The parts of rrweb's Replayer and rrweb-player the in-page scripts use, some of them internal to
// rrweb (applyIncremental, service.state): types only, nothing here reaches the bundles.

/** rrweb's Replayer, with the internals the scripts patch or reset. */
export interface ReplayerInternals {
  iframe: HTMLIFrameElement;
  applyIncremental(event: unknown, isSync: boolean): unknown;
  /** Set by skipBadEvents(): incremental events rrweb threw on. */
  skippedEvents?: number;
  pause(timeOffset?: number): void;
  play(timeOffset?: number): void;
  getCurrentTime(): number;
  /** The node map of the replayed document: node ids as recorded. */
  getMirror(): ReplayMirror;
  handleResize(dimension: { width: number; height: number }): void;
  service: { state: { value: string; context: { lastPlayedEvent: unknown; events: ReplayEvent[]; baselineTime: number } } };
  /** The playback clock: its position past baselineTime, in ms (the live player moves it on). */
  timer: { timeOffset: number };
  /** True while mutations go to rrweb's virtual DOM (a synchronous cast); a "flush" event writes them to the frame. */
  usingVirtualDom: boolean;
  emitter: { emit(type: string): void };
  on(event: string, handler: (payload?: unknown) => void): void;
  config: { insertStyleRules?: string[] };
}

/** The fields of a recorded event the in-page scripts read. */
export interface ReplayEvent {
  type: number;
  timestamp: number;
  data?: {
    source?: number;
    id?: number;
    x?: number;
    y?: number;
    node?: { id?: number };
    initialOffset?: { left?: number; top?: number };
    href?: string;
    width?: number;
    height?: number;
  };
}

/** The methods of rrweb's node mirror that rrweb-snapshot's snapshot() calls. */
export interface ReplayMirror {
  getId(n: Node | undefined | null): number;
  hasNode(n: Node): boolean;
  add(n: Node, meta: unknown): void;
}

/** An event rrweb-player dispatches to its listeners. */
export interface PlayerUiEvent {
  payload?: unknown;
}

/** rrweb-player's component (the UMD global rrwebPlayer.Player). */
export interface RrwebPlayer {
  getReplayer(): ReplayerInternals;
  getMetaData(): { totalTime: number };
  addEventListener(event: string, handler: (detail?: PlayerUiEvent) => unknown): void;
  goto(timeOffset: number, play?: boolean): void;
  addEvent(event: { type: number; timestamp: number; data: unknown }): void;
  toggle(): void;
  setSpeed(speed: number): void;
  triggerResize(): void;
  $set(props: { width: number; height: number }): void;
  addEvent(event: unknown): void;
  $destroy(): void;
}
