// Open WebSockets per tenant across instances. The shared document `ws.<tenantId>` holds each
// instance's count with the time it was last confirmed; an upgrade is admitted by compare-and-set
// when the fresh counts of the others plus this instance's own (kept here, the authority for this
// instance) stay within the limit. Closes are written back shortly after (batched), and every
// instance confirms its counts on a heartbeat, so the slots of an instance that died free up once
// its entry is stale. Store failures fall back to this instance's own count (fail open).
import { randomUUID } from 'node:crypto';
import { KeyedQueue } from '../common/keyed-queue';
import type { SharedDocuments } from '../infrastructure/nats/kv-documents';
import { LIMIT_INFO } from '../domain/tenant-limits';
import { OverLimit } from './tenant-rates';

type SlotDocument = Record<string, { n: number; at: number }>;

export const HEARTBEAT_MS = 10_000;
/** An instance's entry older than this is ignored (and dropped at the next write): it stopped confirming. */
export const STALE_MS = 3.5 * HEARTBEAT_MS;
/** Closes are written back at most this long after they happened. */
const RELEASE_DELAY_MS = 200;
/** Retry hint of a refused upgrade: sockets close at their own pace. */
const RETRY_SECONDS = 5;

export class WebSocketSlots {
  readonly instance = randomUUID();
  /** Open sockets on this instance, per tenant (entries at 0 wait for their write-back). */
  private readonly open = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly queue = new KeyedQueue();
  private flushTimer?: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
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

  /** Open sockets of the tenant on this instance. */
  openHere(tenantId: string): number {
    return this.open.get(tenantId) ?? 0;
  }

  /**
   * Reserves a slot for the tenant's new socket (limit 0: unlimited) and resolves the function that
   * frees it (call it once, when the socket closes). Throws RateLimited when the tenant is at its limit.
   */
  async acquire(tenantId: string, limit: number): Promise<() => void> {
    if (limit > 0) {
      const admitted = await this.queue.run(tenantId, () => this.reserve(tenantId, limit));
      if (!admitted) {
        throw new OverLimit(
          'webSockets',
          `Too many WebSockets: this tenant may keep ${limit} ${LIMIT_INFO.webSockets.unit} (limit webSockets); close one or send over HTTP`,
          RETRY_SECONDS,
        );
      }
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
      admitted = await this.docs.update<SlotDocument, boolean>(`ws.${tenantId}`, (doc) => {
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
      await this.docs.update<SlotDocument, void>(`ws.${tenantId}`, (doc) => {
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

/** Sockets the other instances hold, counting only entries confirmed recently. */
export function othersOpen(doc: SlotDocument | undefined, self: string, now: number): number {
  let n = 0;
  for (const [id, e] of Object.entries(doc ?? {})) if (id !== self && now - e.at < STALE_MS) n += e.n;
  return n;
}
