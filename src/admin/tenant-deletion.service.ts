// Tenant deletion for the admin API: the tenant is refused before the answer, its data is deleted in
// the background of this process (tenant-deletion.ts), and its status shows how far that got. One
// run per tenant at a time here; a run on another instance or in the CLI repeats idempotent steps.
import { Inject, Injectable } from '@nestjs/common';
import type { Tenant } from '../auth/tenant-registry';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { TenantDeletion, tenantDeletionOver } from './tenant-deletion';

@Injectable()
export class TenantDeletionService {
  private readonly deletion: TenantDeletion;
  private readonly running = new Map<string, Promise<void>>();

  constructor(registry: TenantRegistry, nats: NatsClient, ch: ClickHouse, @Inject(APP_CONFIG) cfg: AppConfig) {
    this.deletion = tenantDeletionOver(nats, ch, registry, cfg.STREAM_REPLICAS);
  }

  /** Refuses the tenant (404 when unknown), starts deleting its data, and returns it as refused. */
  async start(tenantId: string): Promise<Tenant> {
    const tenant = await this.deletion.refuse(tenantId);
    if (!this.running.has(tenantId)) {
      // A failure is logged and kept in the tenant's deletion.error by the deletion itself.
      const run = this.deletion
        .run(tenantId)
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => this.running.delete(tenantId));
      this.running.set(tenantId, run);
    }
    return tenant;
  }
}
