// Things a tenant holds at once across instances (open WebSockets, renders in progress or waiting).
// The shared document `<kind>.<tenantId>` holds each instance's count with the time it was last
// confirmed; a new one is admitted by compare-and-set
// when the fresh counts of the others plus this instance's own (kept here, the authority for this
// instance) stay within the limit. Releases are written back shortly after (batched), and every
// instance confirms its counts on a heartbeat, so the slots of an instance that died free up once
// its entry is stale. Store failures fall back to this instance's own count (fail open).
import { randomUUID } from 'node:crypto';
import { KeyedQueue } from '../common/keyed-queue';
import type { SharedDocuments } from '../infrastructure/nats/kv-documents';
import { LIMIT_INFO } from '../domain/tenant-limits';
import { OverLimit } from './tenant-rates';

type SlotDocument = Record<string, { n: number; at: number }>;

/** What is counted: its document's key prefix and the refusal of one over the limit. */
export interface SlotKind {
  key: string;
  refuse: (limit: number) => OverLimit;
}

/** Open ingestion WebSockets: sockets close at their own pace, so a refused upgrade retries in a few seconds. */
export const WEBSOCKETS: SlotKind = {
  key: 'ws',
  refuse: (limit) =>
    new OverLimit(
      'webSockets',
      `Too many WebSockets: this tenant may keep ${limit} ${LIMIT_INFO.webSockets.unit} (limit webSockets); close one or send over HTTP`,
      5,
    ),
};

/** Screenshots rendering or waiting for the renderer: a render takes a fraction of a second to a few seconds. */
export const RENDERS: SlotKind = {
  key: 'renders',
  refuse: (limit) =>
    new OverLimit('renders', `Too many renders at once: this tenant may have ${limit} ${LIMIT_INFO.renders.unit} (limit renders); retry shortly`, 1),
};

/** Live event feeds: a viewer keeps one open while watching. */
export const LIVE_VIEWERS: SlotKind = {
  key: 'viewers',
  refuse: (limit) =>
    new OverLimit(
      'liveViewers',
      `Too many live viewers: this tenant may have ${limit} ${LIMIT_INFO.liveViewers.unit} at once (limit liveViewers); close one or retry later`,
      10,
    ),
};

export const HEARTBEAT_MS = 10_000;
/** An instance's entry older than this is ignored (and dropped at the next write): it stopped confirming. */
export const STALE_MS = 3.5 * HEARTBEAT_MS;
/** Releases are written back at most this long after they happened. */
const RELEASE_DELAY_MS = 200;

export class ConcurrentSlots {
  readonly instance = randomUUID();
  /** Held on this instance, per tenant (entries at 0 wait for their write-back). */
  private readonly open = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly queue = new KeyedQueue();
  private flushTimer?: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly kind: SlotKind,
    private readonly docs: SharedDocuments,
    private readonly onStoreError: (e: unknown) => void,
  ) {
    this.heartbeat = setInterval(() => this.confirmAll(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  stop(): void {
    clearInterval(this.heartbeat);
    clearTimeout(this.flushTimer);
  }

  /** Slots the tenant holds on this instance. */
  openHere(tenantId: string): number {
    return this.open.get(tenantId) ?? 0;
  }

  /**
   * Reserves a slot for the tenant (limit 0: unlimited) and resolves the function that frees it (call
   * it once, when the socket closes or the render ends). Throws OverLimit when the tenant is at its limit.
   */
  async acquire(tenantId: string, limit: number): Promise<() => void> {
    if (limit > 0) {
      const admitted = await this.queue.run(tenantId, () => this.reserve(tenantId, limit));
      if (!admitted) throw this.kind.refuse(limit);
    } else {
      this.open.set(tenantId, this.openHere(tenantId) + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open.set(tenantId, this.openHere(tenantId) - 1);
      this.markDirty(tenantId);
    };
  }

  /** Run one at a time per tenant (its decision and its count here change together). */
  private async reserve(tenantId: string, limit: number): Promise<boolean> {
    let admitted: boolean;
    try {
      admitted = await this.docs.update<SlotDocument, boolean>(this.keyOf(tenantId), (doc) => {
        const now = Date.now();
        const mine = this.openHere(tenantId);
        if (othersOpen(doc, this.instance, now) + mine + 1 > limit) return { result: false };
        return { next: this.withMine(doc, mine + 1, now), result: true };
      });
    } catch (e) {
      this.onStoreError(e);
      admitted = this.openHere(tenantId) + 1 <= limit;
    }
    if (admitted) this.open.set(tenantId, this.openHere(tenantId) + 1);
    return admitted;
  }

  private keyOf(tenantId: string): string {
    return `${this.kind.key}.${tenantId}`;
  }

  private withMine(doc: SlotDocument | undefined, n: number, now: number): SlotDocument {
    const next: SlotDocument = {};
    for (const [id, e] of Object.entries(doc ?? {})) if (id !== this.instance && now - e.at < STALE_MS && e.n > 0) next[id] = e;
    if (n > 0) next[this.instance] = { n, at: now };
    return next;
  }

  private markDirty(tenantId: string): void {
    this.dirty.add(tenantId);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      const tenants = [...this.dirty];
      this.dirty.clear();
      for (const t of tenants) void this.confirm(t);
    }, RELEASE_DELAY_MS);
  }

  /** Writes this instance's current count of the tenant (with a fresh time). */
  private async confirm(tenantId: string): Promise<void> {
    try {
      await this.docs.update<SlotDocument, void>(this.keyOf(tenantId), (doc) => {
        const mine = this.openHere(tenantId);
        if (mine === 0 && !doc?.[this.instance]) return { result: undefined };
        return { next: this.withMine(doc, mine, Date.now()), result: undefined };
      });
    } catch (e) {
      this.onStoreError(e);
    }
    if (this.openHere(tenantId) === 0) this.open.delete(tenantId);
  }

  private confirmAll(): void {
    for (const tenantId of this.open.keys()) void this.confirm(tenantId);
  }
}

/** Slots the other instances hold, counting only entries confirmed recently. */
export function othersOpen(doc: SlotDocument | undefined, self: string, now: number): number {
  let n = 0;
  for (const [id, e] of Object.entries(doc ?? {})) if (id !== self && now - e.at < STALE_MS) n += e.n;
  return n;
}
