// Tenant deletion for the admin API: the tenant is refused before the answer, its data is deleted in
// the background of this process (tenant-deletion.ts), and its status shows how far that got. One
// run per tenant at a time here; a run on another instance or in the CLI repeats idempotent steps.
// The tenant record leaves the registry a moment before the run ends (its deletion marker stays for
// the other instances' watchers): until then this instance still shows it, so a 404 means done.
import { Inject, Injectable } from '@nestjs/common';
import type { Tenant } from '../auth/tenant-records';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { TenantDeletion, tenantDeletionOver } from './tenant-deletion';

@Injectable()
export class TenantDeletionService {
  private readonly deletion: TenantDeletion;
  /** Runs in this process, with the tenant as last seen by each. */
  private readonly running = new Map<string, { tenant: Tenant }>();

  constructor(registry: TenantRegistry, nats: NatsClient, ch: ClickHouse, @Inject(APP_CONFIG) cfg: AppConfig) {
    this.deletion = tenantDeletionOver(nats, ch, registry, cfg.STREAM_REPLICAS);
  }

  /** Refuses the tenant (404 when unknown), starts deleting its data, and returns it as refused. */
  async start(tenantId: string): Promise<Tenant> {
    const tenant = await this.deletion.refuse(tenantId);
    if (!this.running.has(tenantId)) {
      const job = { tenant };
      this.running.set(tenantId, job);
      // A failure is logged and kept in the tenant's deletion.error by the deletion itself.
      void this.deletion
        .run(tenantId, ({ step }) => (job.tenant = { ...job.tenant, deletion: { step, updatedAt: Date.now() } }))
        .catch(() => undefined)
        .finally(() => this.running.delete(tenantId));
    }
    return tenant;
  }

  /** The tenant of a deletion still running here (its record may already be gone from the registry). */
  inProgress(tenantId: string): Tenant | undefined {
    return this.running.get(tenantId)?.tenant;
  }
}
