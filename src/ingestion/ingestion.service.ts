// The write side: validated events become one JetStream batch. Success is returned only after
// JetStream stored the batch. The batch id (and so Nats-Msg-Id) comes from the client's
// Idempotency-Key when given, else from the content, so blind retries are de-duplicated too
// (batch-preparation.ts). Large HTTP bodies are prepared and stored by a batch thread
// (batch-threads.ts), admitted here in between.
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { utf8 } from '../common/request-body';
import { BEARER } from '../auth/authenticator';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { MAX_META_KEY_LENGTH, MAX_META_KEYS, metadataValue } from '../domain/batch-summary';
import { EVENT_STORE, EventStore } from '../domain/event-store';
import { threadSettings } from '../infrastructure/nats/thread-event-store';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { IngestMetrics } from './ingest-metrics';
import type { IngestResult, MetadataResult } from './ingestion.dto';
import { BatchBody, batchIdOf, EventsBatch, PreparedBatch, prepareBody, prepareEvents } from './batch-preparation';
import { BatchThreads, StagedBatch } from './batch-threads';

export { IDEMPOTENCY_KEY } from './batch-preparation';

/** The Fastify route config flag of the ingestion endpoints (beforeBody applies to them). */
export const INGEST_ROUTE = 'tapedeckIngest';

@Injectable()
export class IngestionService implements OnModuleDestroy {
  private readonly threads: BatchThreads;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    private readonly metrics: IngestMetrics,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly registry: TenantRegistry,
    private readonly limits: TenantLimiter,
  ) {
    this.threads = new BatchThreads(cfg.INGEST_THREADS, cfg.INGEST_THREAD_MIN_BYTES, threadSettings(cfg, cfg.INGEST_THREAD_NICE));
  }

  async onModuleDestroy() {
    await this.threads.close();
  }

  /** Refuses a batch before it is parsed when the tenant is known to be over a limit (429/507). */
  precheck(tenantId: string): void {
    this.limits.precheckIngest(tenantId);
  }

  /**
   * What happens to an ingestion request before its body is read (app.factory.ts), when it names an
   * API key: refused at once when this instance already knows the tenant to be over an ingestion
   * limit, so that a tenant sending on while over its byte rate costs the service neither the
   * buffering nor the pipeline of its bodies (`readBody`: whether the body announced, `bytes`, NaN:
   * unknown, is still read and dropped, or left unread with the connection closed:
   * TenantLimiter.drainsRefusedBody); else held for `waitSeconds` when the tenant's requests are
   * ahead of its rates in this process (TenantLimiter.paceIngest). Undefined: the request goes its
   * normal way at once (auth, parse, admission). Nothing is decided here that the normal way would
   * not decide the same.
   */
  beforeBody(
    authorization: string | undefined,
    query: unknown,
    bytes: number,
  ): { error: AppError; readBody: boolean } | { waitSeconds: number; error?: undefined } | undefined {
    const token = (query as { token?: unknown } | undefined)?.token;
    const bearer = authorization === undefined ? token : BEARER.exec(authorization)?.[1];
    if (typeof bearer !== 'string') return undefined;
    const key = this.registry.authenticate(bearer);
    if (!key) return undefined;
    try {
      this.registry.assertServing(key.tenantId);
    } catch {
      return undefined; // the guard answers its 403
    }
    try {
      this.limits.precheckIngest(key.tenantId);
      const waitSeconds = this.limits.paceIngest(key.tenantId, bytes);
      return waitSeconds > 0 ? { waitSeconds } : undefined;
    } catch (e) {
      if (!(e instanceof AppError)) return undefined;
      return { error: e, readBody: this.limits.drainsRefusedBody(key.tenantId, bytes) };
    }
  }

  /** An HTTP body as received (a large one decoded, parsed, validated and stored by a batch thread), stored. */
  async ingestBody(body: BatchBody): Promise<IngestResult> {
    const started = process.hrtime.bigint();
    const received = body.body.byteLength; // before a batch thread takes the body
    const batch = this.threads.takes(body) ? await this.threads.stage(body) : this.staged(body.tenantId, body.recordingId, prepareBody(body));
    return this.commit(body.tenantId, body.recordingId, batch, started, body.idempotencyKey, received);
  }

  /** Events already parsed and validated (WebSocket frames), stored. */
  async ingest(batch: EventsBatch): Promise<IngestResult> {
    const started = process.hrtime.bigint();
    return this.commit(batch.tenantId, batch.recordingId, this.staged(batch.tenantId, batch.recordingId, prepareEvents(batch)), started, batch.idempotencyKey);
  }

  /** A batch prepared in this thread, stored from it. */
  private staged(tenantId: string, recordingId: string, b: PreparedBatch): StagedBatch {
    return {
      events: b.events,
      bytes: b.payload.length,
      batchId: b.batchId,
      append: async () => ({ ...(await this.eventStore.appendBatch(tenantId, recordingId, b.batchId, b.payload, b.summary, b.activity)), payload: b.payload }),
      drop: () => undefined,
    };
  }

  private async commit(
    tenantId: string,
    recordingId: string,
    batch: StagedBatch,
    started: bigint,
    idempotencyKey?: string,
    received?: number,
  ): Promise<IngestResult> {
    const bytes = batch.bytes;
    try {
      // Authorised before the tenant was suspended or set for deletion (a slow body, an open WebSocket): refused now.
      this.registry.assertServing(tenantId);
      // Before the write: a batch over a limit is refused whole, never stored unacknowledged.
      await this.limits.admitIngest(tenantId, batch.events, bytes, received);
    } catch (e) {
      batch.drop();
      throw e;
    }
    const r = await batch.append();
    if (!r.duplicate) this.limits.stored(tenantId, bytes);
    if (r.duplicate && idempotencyKey !== undefined) await this.assertSameAsStored(tenantId, recordingId, 'ev', r.seqs, JSON.parse(utf8(r.payload!)));
    this.metrics.observe(batch.events, bytes, Number(process.hrtime.bigint() - started) / 1e9, r.duplicate);
    return { recordingId, batchId: batch.batchId, events: batch.events, duplicate: r.duplicate };
  }

  /**
   * A keyed write JetStream took for a duplicate is only a retry when it carries what the key stored
   * first: another body under a used key would be acknowledged and never stored (IETF
   * draft-ietf-httpapi-idempotency-key-header: 422). Compared as parsed JSON, so a retry that was
   * re-serialised (NDJSON instead of a JSON array, other whitespace, over HTTP after WebSocket) is
   * still the same. Costs a message get, only on this rare path.
   */
  private async assertSameAsStored(tenantId: string, recordingId: string, kind: 'ev' | 'meta', seqs: number[], sent: unknown): Promise<void> {
    const stored = await this.eventStore.storedPayload(tenantId, recordingId, kind, seqs);
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
    const writeId = 'm' + batchIdOf(tenantId, recordingId, idempotencyKey ?? randomUUID(), '');
    this.registry.assertServing(tenantId);
    const r = await this.eventStore.appendMetadata(tenantId, recordingId, writeId, metadata);
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
