// Deleting a tenant, in an order that lets nothing come back:
//   refuse       the tenant is marked "deleting": every instance refuses its keys, links and writes
//                (403) within about a second, its WebSockets are closed, retention leaves it alone;
//   stream       every message of td.rec.<tenantId>.> is deleted, pass after pass, the last pass
//                starting at least SETTLE_MS after the refusal (writes authorised just before it);
//   projections  once no projector holds one of those messages any more, the tenant's rows go from
//                every ClickHouse table, rebuild leftovers included, under the rebuild locks, so
//                neither the projector nor `projections rebuild` can write them again;
//   archives     further stores holding copies of the tenant's data (the extension point: an
//                object-store archive registers its eraser here), after the stream, so that nothing
//                is archived after its erasure;
//   registry     API keys, signing keys and the tenant record, deletion markers included.
// Every step is idempotent. A run cut short (a crash, a store down) leaves the tenant "deleting" with
// the step it reached and, when it failed, why: running the deletion again does every step again,
// each finding less to do, and finishes it.
import { Logger } from '@nestjs/common';
import { eraseTenantEntries } from '../auth/tenant-erasure';
import type { TenantRegistry } from '../auth/tenant-registry';
import type { Tenant } from '../auth/tenant-records';
import type { DeletionStep } from '../auth/tenant-status';
import { AppError } from '../common/app-error';
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { ArchiveStore } from '../infrastructure/nats/archive-store';
import { deleteKvKeys } from '../infrastructure/nats/kv-bucket';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { LIMITS_BUCKET, SEALS_BUCKET } from '../infrastructure/nats/subjects';
import { TenantMessages } from '../infrastructure/nats/tenant-messages';
import { awaitProjectorsPast, eraseTenantRows } from '../projections/tenant-rows';

/** How long after the refusal the last pass over the stream may start: refusal propagation (about 1 s) plus a write in flight. */
export const SETTLE_MS = 5000;

/** A store that holds copies of a tenant's data, erased after the stream and the projections (the archives step). */
export interface TenantDataEraser {
  name: string;
  erase(tenantId: string): Promise<void>;
}

export interface TenantDeletionPorts {
  registry: Pick<TenantRegistry, 'tenant' | 'setStatus'>;
  stream: { erase(tenantId: string, o: { quietAfter: number; onProgress?: (deleted: number) => void }): Promise<{ deleted: number; throughSeq: number }> };
  projections: { awaitPast(seq: number): Promise<void>; erase(tenantId: string): Promise<string[]> };
  /** Object-store archives and the like: recording archives (docs/archives.md). */
  archives: readonly TenantDataEraser[];
  /** Erases the tenant's registry entries (tenant-erasure.ts). */
  entries: { erase(tenantId: string): Promise<number> };
}

export interface TenantDeletionReport {
  tenantId: string;
  /** Stream messages deleted by this run (an earlier, cut-short run may have deleted others). */
  messages: number;
  /** ClickHouse tables that held rows of the tenant. */
  tables: string[];
  seconds: number;
}

export interface DeletionProgress {
  step: DeletionStep;
  /** Stream messages deleted so far (stream step). */
  messages?: number;
}

export class TenantDeletion {
  private readonly logger = new Logger('tenants');

  constructor(
    private readonly ports: TenantDeletionPorts,
    private readonly settleMs = SETTLE_MS,
  ) {}

  /** Marks the tenant "deleting" (refused everywhere); resolves to the stored tenant. 404 for an unknown tenant. */
  async refuse(tenantId: string): Promise<Tenant> {
    const t = this.ports.registry.tenant(tenantId);
    if (!t) throw new AppError('not_found', `No tenant ${tenantId}`);
    const since = t.status === 'deleting' ? (t.statusSince ?? Date.now()) : Date.now();
    return this.ports.registry.setStatus(tenantId, { status: 'deleting', statusSince: since, deletion: { step: 'refuse', updatedAt: Date.now() } });
  }

  /** Runs (or finishes) the deletion; the tenant must have been refused first (`refuse`). */
  async run(tenantId: string, onProgress?: (p: DeletionProgress) => void): Promise<TenantDeletionReport> {
    const started = Date.now();
    const t = await this.refuse(tenantId);
    const since = t.statusSince!;
    const report: TenantDeletionReport = { tenantId, messages: 0, tables: [], seconds: 0 };
    let step: DeletionStep = 'refuse';
    const enter = async (next: DeletionStep) => {
      step = next;
      onProgress?.({ step });
      await this.ports.registry.setStatus(tenantId, { status: 'deleting', statusSince: since, deletion: { step, updatedAt: Date.now() } });
    };
    try {
      await enter('stream');
      const stream = await this.ports.stream.erase(tenantId, {
        quietAfter: since + this.settleMs,
        onProgress: (messages) => onProgress?.({ step: 'stream', messages }),
      });
      report.messages = stream.deleted;
      await enter('projections');
      await this.ports.projections.awaitPast(stream.throughSeq);
      report.tables = await this.ports.projections.erase(tenantId);
      await enter('archives');
      for (const a of this.ports.archives) await a.erase(tenantId);
      await enter('registry');
      await this.ports.entries.erase(tenantId);
    } catch (e) {
      const error = String((e as Error)?.message ?? e).slice(0, 500);
      this.logger.warn({ msg: 'tenant deletion stopped; run it again to finish', tenantId, step, err: error });
      await this.ports.registry
        .setStatus(tenantId, { status: 'deleting', statusSince: since, deletion: { step, updatedAt: Date.now(), error } })
        .catch(() => undefined); // the tenant record may be gone already (registry step)
      throw e;
    }
    report.seconds = (Date.now() - started) / 1000;
    this.logger.log({ msg: 'tenant deleted', ...report });
    return report;
  }
}

/** The deletion over the real stores: the event stream, the projectors and ClickHouse, the recording archives, the registry. */
export function tenantDeletionOver(nats: NatsClient, ch: ClickHouse, registry: TenantRegistry, replicas: number): TenantDeletion {
  return new TenantDeletion({
    registry,
    stream: new TenantMessages(nats),
    projections: { awaitPast: (seq) => awaitProjectorsPast(nats, seq), erase: (id) => eraseTenantRows(ch, nats, replicas, id) },
    archives: [
      {
        name: 'recording archives',
        // Recording archives are named `<tenantId>.<recordingId>.<seq>`, seal states keyed `<tenantId>.<recordingId>`.
        erase: async (id) => {
          const store = new ArchiveStore(nats, replicas);
          for (const o of await store.list()) if (o.name.startsWith(`${id}.`)) await store.delete(o.name);
          await deleteKvKeys(nats, SEALS_BUCKET, `${id}.>`);
        },
      },
    ],
    entries: {
      erase: async (id) => {
        // The shared limit counters name the tenant in their keys (limits/): gone with it.
        for (const filter of [`rate.${id}.>`, `ws.${id}`]) await deleteKvKeys(nats, LIMITS_BUCKET, filter);
        return eraseTenantEntries(registry, nats, id);
      },
    },
  });
}
