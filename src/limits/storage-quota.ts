// The stored-bytes quota. A tenant's usage is what the projections of the stream count (the bytes of
// its visible event batches, read from ClickHouse every TENANT_USAGE_REFRESH_SECONDS while it
// ingests here) plus what this instance stored since that read began. The check comes before a
// batch is stored, so a batch is either refused whole or stored and acknowledged. Other instances'
// writes show up at the next read: the quota can be passed by at most about the tenant's ingestion
// rate times the refresh interval, summed over instances. If the usage cannot be read, ingestion goes
// on (fail open) with the last usage known.
import { QuotaExceeded } from '../common/app-error';
import { LIMIT_INFO } from '../domain/tenant-limits';

/** Where usage comes from (the read model; a fake in unit tests). */
export interface UsageSource {
  storedBytes(tenantId: string): Promise<number>;
}

interface Usage {
  /** Bytes the last read found. */
  bytes: number;
  /** Bytes stored here since that read began. */
  added: number;
  /** When the last read began (epoch ms); 0: never read. */
  readAt: number;
  reading?: Promise<void>;
}

/** How long the first check of a tenant waits for its usage before letting the batch through. */
const FIRST_READ_WAIT_MS = 2000;

export class StorageQuota {
  private readonly usage = new Map<string, Usage>();

  constructor(
    private readonly source: UsageSource,
    private readonly refreshMs: number,
    private readonly onReadError: (e: unknown) => void,
  ) {}

  /** Throws QuotaExceeded when the tenant already stores `quota` bytes or more (0: unlimited). */
  async assertRoom(tenantId: string, quota: number): Promise<void> {
    if (quota <= 0) return;
    const u = this.entry(tenantId);
    if (u.readAt === 0 && u.reading) await Promise.race([u.reading, new Promise((r) => setTimeout(r, FIRST_READ_WAIT_MS).unref())]);
    this.assertKnownRoom(tenantId, quota);
  }

  /** The same check without waiting for a first read (usage not known yet: passes). */
  assertKnownRoom(tenantId: string, quota: number): void {
    if (quota <= 0) return;
    const u = this.entry(tenantId);
    const used = u.bytes + u.added;
    if (used < quota) return;
    throw new QuotaExceeded(
      `Storage quota exceeded: this tenant stores ${used} of its ${quota} ${LIMIT_INFO.storedBytes.unit} (limit storedBytes); nothing of this batch was stored. Delete recordings, shorten the retention or ask the operator for a larger quota`,
      this.refreshMs / 1000,
    );
  }

  /** Counts bytes this instance stored for the tenant (non-duplicate writes). */
  added(tenantId: string, bytes: number): void {
    this.entry(tenantId).added += bytes;
  }

  /** The tenant's usage as known here, reading it again when the last read is older than the refresh interval. */
  private entry(tenantId: string): Usage {
    let u = this.usage.get(tenantId);
    if (!u) this.usage.set(tenantId, (u = { bytes: 0, added: 0, readAt: 0 }));
    if (!u.reading && Date.now() - u.readAt >= this.refreshMs) u.reading = this.read(tenantId, u).finally(() => (u.reading = undefined));
    return u;
  }

  private async read(tenantId: string, u: Usage): Promise<void> {
    const started = Date.now();
    const addedBefore = u.added;
    try {
      u.bytes = await this.source.storedBytes(tenantId);
      u.added -= addedBefore;
      u.readAt = started;
    } catch (e) {
      // Tried again after the interval, not at every batch.
      u.readAt = Math.max(u.readAt, started - this.refreshMs + 1000);
      this.onReadError(e);
    }
  }
}
