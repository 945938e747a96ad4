// The write side: validated events become one JetStream batch. Success is returned only after
// JetStream stored the batch. The batch id (and so Nats-Msg-Id) comes from the client's
// Idempotency-Key when given, else from the content, so blind retries are de-duplicated too.
import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { activityHeader } from '../domain/activity/activity-header';
import { ClientInfo, MAX_META_KEY_LENGTH, MAX_META_KEYS, metadataValue, summarizeBatch } from '../domain/batch-summary';
import { EVENT_STORE, EventStore } from '../domain/event-store';
import type { RrwebEvent } from '../domain/rrweb-event';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { IngestMetrics } from './ingest-metrics';
import type { IngestResult, MetadataResult } from './ingestion.dto';

export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{1,128}$/;

@Injectable()
export class IngestionService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly metrics: IngestMetrics,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly registry: TenantRegistry,
    private readonly limits: TenantLimiter,
  ) {}

  /** Refuses a batch before it is parsed when the tenant is known to be over a limit (429/507). */
  precheck(tenantId: string): void {
    this.limits.precheckIngest(tenantId);
  }

  batchId(tenantId: string, recordingId: string, idempotencyKey: string | undefined, payload: string): string {
    const h = createHash('sha256').update(`${tenantId}\n${recordingId}\n`);
    if (idempotencyKey !== undefined) {
      if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw new AppError('bad_request', 'Idempotency-Key must be 1-128 characters of A-Z a-z 0-9 _ . : -');
      h.update(`key\n${idempotencyKey}`);
    } else {
      h.update('content\n').update(payload);
    }
    return h.digest('hex').slice(0, 40);
  }

  /** `client` becomes metadata only where the batch's recording-meta allows it (includePii). */
  async ingest(
    tenantId: string,
    recordingId: string,
    events: RrwebEvent[],
    payload: string,
    client: ClientInfo,
    idempotencyKey?: string,
  ): Promise<IngestResult> {
    const started = process.hrtime.bigint();
    const batchId = this.batchId(tenantId, recordingId, idempotencyKey, payload);
    const bytes = Buffer.from(payload, 'utf8');
    const summary = summarizeBatch(events, bytes.length, client);
    // Authorised before the tenant was suspended or set for deletion (a slow body, an open WebSocket): refused now.
    this.registry.assertServing(tenantId);
    // Before the write: a batch over a limit is refused whole, never stored unacknowledged.
    await this.limits.admitIngest(tenantId, events.length, bytes.length);
    const r = await this.store.appendBatch(tenantId, recordingId, batchId, bytes, summary, activityHeader(events));
    if (!r.duplicate) this.limits.stored(tenantId, bytes.length);
    if (r.duplicate && idempotencyKey !== undefined) await this.assertSameAsStored(tenantId, recordingId, 'ev', r.seqs, events);
    this.metrics.observe(events.length, bytes.length, Number(process.hrtime.bigint() - started) / 1e9, r.duplicate);
    return { recordingId, batchId, events: events.length, duplicate: r.duplicate };
  }

  /**
   * A keyed write JetStream took for a duplicate is only a retry when it carries what the key stored
   * first: another body under a used key would be acknowledged and never stored (IETF
   * draft-ietf-httpapi-idempotency-key-header: 422). Compared as parsed JSON, so a retry that was
   * re-serialised (NDJSON instead of a JSON array, other whitespace, over HTTP after WebSocket) is
   * still the same. Costs a message get, only on this rare path.
   */
  private async assertSameAsStored(tenantId: string, recordingId: string, kind: 'ev' | 'meta', seqs: number[], sent: unknown): Promise<void> {
    const stored = await this.store.storedPayload(tenantId, recordingId, kind, seqs);
    if (stored === undefined) return; // gone meanwhile (deleted, expired): nothing to compare with
    let same: boolean;
    try {
      same = JSON.stringify(JSON.parse(Buffer.from(stored).toString('utf8'))) === JSON.stringify(sent);
    } catch {
      same = false;
    }
    if (!same) {
      throw new AppError(
        'unprocessable',
        `This Idempotency-Key (or WebSocket batch id) was used before in this recording for a different ${kind === 'ev' ? 'batch of events' : 'metadata write'}; nothing was stored. Use a new key for new data`,
      );
    }
  }

  /** Validates a metadata object (string keys; scalar values stored as strings). */
  normalizeMetadata(body: unknown): Record<string, string> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AppError('bad_request', 'Metadata must be a JSON object of keys to values');
    const entries = Object.entries(body as Record<string, unknown>);
    if (entries.length === 0) throw new AppError('bad_request', 'Metadata object is empty');
    if (entries.length > MAX_META_KEYS) throw new AppError('bad_request', `At most ${MAX_META_KEYS} metadata keys per write`);
    // Object.fromEntries defines own properties: "__proto__" stays a key instead of hitting the setter.
    const out: [string, string][] = [];
    for (const [k, v] of entries) {
      if (k.length === 0 || k.length > MAX_META_KEY_LENGTH || !k.isWellFormed())
        throw new AppError('bad_request', `Metadata key must be 1-${MAX_META_KEY_LENGTH} characters`);
      if (v !== null && typeof v === 'object') throw new AppError('bad_request', `Metadata value of "${k.slice(0, 50)}" must be a string, number or boolean`);
      const s = metadataValue(v);
      if (s === undefined) throw new AppError('bad_request', `Metadata value of "${k.slice(0, 50)}" must not be null`);
      if (!s.isWellFormed()) throw new AppError('bad_request', 'Metadata values must be valid Unicode');
      out.push([k, s]);
    }
    return Object.fromEntries(out);
  }

  async attachMetadata(tenantId: string, recordingId: string, metadata: Record<string, string>, idempotencyKey?: string): Promise<MetadataResult> {
    // Without a key every write is new: the same values written again later must win again.
    const writeId = 'm' + this.batchId(tenantId, recordingId, idempotencyKey ?? randomUUID(), '');
    this.registry.assertServing(tenantId);
    const r = await this.store.appendMetadata(tenantId, recordingId, writeId, metadata);
    if (r.duplicate && idempotencyKey !== undefined) await this.assertSameAsStored(tenantId, recordingId, 'meta', r.seqs, metadata);
    return { recordingId, keys: Object.keys(metadata).length, duplicate: r.duplicate };
  }

  get maxBodyBytes(): number {
    return this.cfg.INGEST_MAX_BODY_BYTES;
  }

  get maxEventBytes(): number {
    return this.cfg.INGEST_MAX_EVENT_BYTES;
  }
}
