// Well-behaved ingestion clients for fault tests. Each keeps a batch (same id) until the service
// acknowledges it, and resends it after an error or a reconnect — the contract of docs/websocket.md
// and of Idempotency-Key over HTTP. Every event carries a unique marker, so a read-back can prove
// that each acknowledged event is stored exactly once.
import { WebSocket } from 'ws';

export interface MarkedEvent {
  type: number;
  timestamp: number;
  data: { source: number; positions: { x: number; y: number; id: number; timeOffset: number }[]; marker: string };
}

/** `n` incremental events with markers `<prefix>:<batch>:<i>` and timestamps unique per prefix. */
export function markedBatch(prefix: string, batch: number, n: number, t0: number): MarkedEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    type: 3,
    timestamp: t0 + batch * n + i,
    data: { source: 1, positions: [{ x: i, y: batch, id: 1, timeOffset: 0 }], marker: `${prefix}:${batch}:${i}` },
  }));
}

export interface Ack {
  at: number;
  events: number;
  duplicate: boolean;
}

/** The `message` of an error body, else its start. */
const messageOf = (body: string): string => {
  try {
    return String((JSON.parse(body) as { message?: unknown }).message ?? body);
  } catch {
    return body;
  }
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An HTTP request unanswered this long is abandoned (and counted as 'hung'); the service answers 503 well before. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** What a client saw: acknowledged batches with their markers, refusals by status. */
export abstract class Ingester {
  readonly acked = new Map<string, Ack>();
  /** Markers of every event of every acknowledged batch. */
  readonly ackedMarkers: string[] = [];
  /**
   * Status (or 'network' / 'close', or 'hung': an HTTP request unanswered for REQUEST_TIMEOUT_MS) →
   * how often a batch was refused or interrupted.
   */
  readonly failures: Record<string, number> = {};
  /** Each distinct refusal message (status and message), with how often and when first and last (Date.now()): what a failed run says about why. */
  readonly refusals = new Map<string, { n: number; first: number; last: number }>();
  protected stopping = false;
  protected next = 0;
  protected readonly t0 = Date.now();

  constructor(
    readonly recordingId: string,
    readonly prefix: string,
    protected readonly eventsPerBatch: number,
  ) {}

  /** Batches created so far (acknowledged or not). */
  get produced(): number {
    return this.next;
  }

  get failureCount(): number {
    return Object.values(this.failures).reduce((a, b) => a + b, 0);
  }

  get lastAckAt(): number {
    let last = 0;
    for (const a of this.acked.values()) last = Math.max(last, a.at);
    return last;
  }

  protected fail(kind: string | number, message = '') {
    this.failures[kind] = (this.failures[kind] ?? 0) + 1;
    const key = `${kind} ${message.slice(0, 200)}`.trim();
    const at = Date.now();
    const r = this.refusals.get(key);
    if (r) Object.assign(r, { n: r.n + 1, last: at });
    else this.refusals.set(key, { n: 1, first: at, last: at });
  }

  /** The refusals seen, with their times in ms from `since`. */
  describeRefusals(since: number): string {
    const rel = (t: number) => `${t >= since ? '+' : ''}${t - since}`;
    return [...this.refusals].map(([k, r]) => `${this.prefix} ${r.n}× ${k} (${rel(r.first)}…${rel(r.last)} ms)`).join('; ');
  }

  protected newBatch(): { id: string; events: MarkedEvent[] } {
    const b = this.next++;
    return { id: `${this.prefix}-${b}`, events: markedBatch(this.prefix, b, this.eventsPerBatch, this.t0) };
  }

  protected record(id: string, events: MarkedEvent[], duplicate: boolean) {
    if (this.acked.has(id)) return;
    this.acked.set(id, { at: Date.now(), events: events.length, duplicate });
    for (const e of events) this.ackedMarkers.push(e.data.marker);
  }
}

/**
 * POSTs batches one after another with an Idempotency-Key, each retried (same key) on 503 or a
 * network error until it is acknowledged; any other status fails the run.
 */
export class HttpIngester extends Ingester {
  private done?: Promise<void>;
  /** Statuses other than 200/503 (must stay empty). */
  readonly unexpected: { status: number; body: string }[] = [];

  constructor(
    private readonly baseUrl: () => string,
    private readonly key: string,
    recordingId: string,
    prefix: string,
    eventsPerBatch = 5,
    private readonly pauseMs = 20,
  ) {
    super(recordingId, prefix, eventsPerBatch);
  }

  start(): this {
    this.done = this.loop();
    return this;
  }

  /** Stops producing new batches; resolves once the batch in hand is acknowledged. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.done;
  }

  /** Gives up at once, even on an unacknowledged batch (clean-up after a failed test). */
  close() {
    this.stopping = this.closed = true;
  }
  private closed = false;

  private async loop() {
    while (!this.stopping) {
      const { id, events } = this.newBatch();
      for (let attempt = 1; ; attempt++) {
        let status: number | 'network' | 'hung';
        let body = '';
        try {
          const r = await fetch(`${this.baseUrl()}/recordings/${this.recordingId}/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', 'idempotency-key': id },
            body: JSON.stringify(events),
            signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          status = r.status;
          body = await r.text();
        } catch (e) {
          status = (e as Error).name === 'TimeoutError' ? 'hung' : 'network';
        }
        if (status === 200) {
          const res = JSON.parse(body) as { events: number; duplicate: boolean };
          if (res.events !== events.length) this.unexpected.push({ status, body });
          this.record(id, events, res.duplicate);
          break;
        }
        this.fail(status, messageOf(body));
        if (this.closed) return;
        if (status !== 503 && status !== 'network' && status !== 'hung') {
          this.unexpected.push({ status, body: body.slice(0, 300) });
          return;
        }
        await sleep(Math.min(1000, 50 * attempt));
      }
      await sleep(this.pauseMs);
    }
  }
}

/**
 * Tapedeck batch frames over one WebSocket ({"type":"batch","batch":id,"events":[…]}), up to
 * `window` batches awaiting an ack. An error frame for a batch resends it after a pause; a closed
 * socket reconnects and resends every unacknowledged batch in order with the same ids.
 */
export class WsIngester extends Ingester {
  private ws?: WebSocket;
  private open = false;
  private readonly unacked = new Map<string, MarkedEvent[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private producer?: NodeJS.Timeout;
  /** Error frames that named no batch or had an unexpected status (must stay empty). */
  readonly unexpected: unknown[] = [];
  reconnects = 0;

  /** `baseUrl` is read at every (re)connect. */
  constructor(
    private readonly baseUrl: () => string,
    private readonly key: string,
    recordingId: string,
    prefix: string,
    eventsPerBatch = 5,
    private readonly everyMs = 25,
    private readonly window = 16,
  ) {
    super(recordingId, prefix, eventsPerBatch);
  }

  private wsUrl(): string {
    return `${this.baseUrl().replace(/^http/, 'ws')}/recordings/${this.recordingId}/events/ws?token=${encodeURIComponent(this.key)}`;
  }

  get pending(): number {
    return this.unacked.size;
  }

  start(): this {
    this.connect();
    this.producer = setInterval(() => {
      if (this.stopping || this.unacked.size >= this.window) return;
      const { id, events } = this.newBatch();
      this.unacked.set(id, events);
      this.send(id, events);
    }, this.everyMs);
    return this;
  }

  private later(fn: () => void, ms: number) {
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(t);
  }

  private connect() {
    const ws = new WebSocket(this.wsUrl());
    this.ws = ws;
    ws.on('open', () => {
      this.open = true;
      for (const [id, events] of this.unacked) this.send(id, events);
    });
    ws.on('message', (data) => this.onFrame(JSON.parse(String(data))));
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (this.ws !== ws) return;
      const wasOpen = this.open;
      this.open = false;
      if (this.closed) return;
      this.fail('close');
      this.reconnects++;
      this.later(() => this.connect(), wasOpen ? 100 : 250);
    });
  }

  private send(id: string, events: MarkedEvent[]) {
    if (this.open) this.ws!.send(JSON.stringify({ type: 'batch', batch: id, events }));
  }

  private onFrame(f: { type: string; batch?: string; events?: number; duplicate?: boolean; status?: number }) {
    if (f.type === 'ack' && f.batch) {
      const events = this.unacked.get(f.batch);
      if (!events) return; // an ack for a batch acknowledged before (a resend raced the first ack)
      this.unacked.delete(f.batch);
      if (f.events !== events.length) this.unexpected.push(f);
      this.record(f.batch, events, !!f.duplicate);
    } else if (f.type === 'error') {
      this.fail(f.status ?? 'error', (f as { message?: string }).message);
      if (!f.batch || (f.status !== 503 && f.status !== 429)) return void this.unexpected.push(f);
      const id = f.batch;
      this.later(() => {
        const events = this.unacked.get(id);
        if (events) this.send(id, events);
      }, 200);
    }
  }

  /** Stops producing; resolves once every batch is acknowledged (or rejects after `timeoutMs`). */
  async stop(timeoutMs = 60_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.producer);
    const deadline = Date.now() + timeoutMs;
    while (this.unacked.size > 0) {
      if (Date.now() > deadline) throw new Error(`${this.prefix}: ${this.unacked.size} batches never acknowledged`);
      await sleep(50);
    }
    this.close();
  }

  close() {
    this.closed = true;
    clearInterval(this.producer);
    for (const t of this.timers) clearTimeout(t);
    this.ws?.close();
  }
}

/** Reads a recording's events back (GET /recordings/{id}/events). */
export async function readEvents(baseUrl: string, secretKey: string, recordingId: string): Promise<MarkedEvent[]> {
  const r = await fetch(`${baseUrl}/recordings/${recordingId}/events`, { headers: { authorization: `Bearer ${secretKey}` } });
  if (r.status !== 200) throw new Error(`GET events ${recordingId}: ${r.status} ${await r.text()}`);
  return (await r.json()) as MarkedEvent[];
}

/** Markers stored more than once, and acknowledged markers not stored. */
export function compareMarkers(acked: string[], stored: MarkedEvent[]): { missing: string[]; duplicated: string[]; unexpected: string[] } {
  const counts = new Map<string, number>();
  for (const e of stored) counts.set(e.data.marker, (counts.get(e.data.marker) ?? 0) + 1);
  const ackedSet = new Set(acked);
  return {
    missing: acked.filter((m) => !counts.has(m)),
    duplicated: [...counts].filter(([, c]) => c > 1).map(([m]) => m),
    unexpected: [...counts.keys()].filter((m) => !ackedSet.has(m)),
  };
}

/**
 * Asserts that every event the clients had acknowledged is stored exactly once in its recording and
 * nothing else is (clients may share a recording). Returns a line describing what the clients saw.
 */
export async function expectAckedStoredOnce(baseUrl: string, secretKey: string, clients: Ingester[]): Promise<string> {
  for (const id of new Set(clients.map((c) => c.recordingId))) {
    const stored = await readEvents(baseUrl, secretKey, id);
    const acked = clients.filter((c) => c.recordingId === id).flatMap((c) => c.ackedMarkers);
    expect(compareMarkers(acked, stored)).toEqual({ missing: [], duplicated: [], unexpected: [] });
    expect(stored.length).toBe(acked.length);
  }
  const dup = clients.reduce((n, c) => n + [...c.acked.values()].filter((a) => a.duplicate).length, 0);
  return `${clients.map((c) => `${c.prefix} ${c.acked.size} batches acked, failures ${JSON.stringify(c.failures)}`).join('; ')}; ${dup} retries answered duplicate`;
}
