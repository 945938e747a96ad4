// The auth module's part in start-up: once the event streams exist, the tenant registry opens (its
// bucket created if needed) and the bootstrap tenant is applied, before the service answers; the
// registry's watch stops at shutdown before NATS closes. BootService runs (and retries) the steps.
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { BootService, sleep } from '../infrastructure/boot.service';
import { applyBootstrapTenant } from './bootstrap-tenant';
import { TenantRegistry } from './tenant-registry';

@Injectable()
export class TenantRegistryBoot {
  private readonly logger = new Logger('boot');

  constructor(
    boot: BootService,
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {
    boot.addNatsStep({ what: 'open the tenant registry', run: () => registry.start(), stop: () => registry.stop() });
    boot.addNatsStep({ what: 'apply the bootstrap tenant', run: () => this.bootstrapTenant() });
  }

  /** Applies the configured bootstrap tenant, then waits (2 s at most) until its secret key authenticates here. */
  private async bootstrapTenant(): Promise<void> {
    if (!(await applyBootstrapTenant(this.registry, this.cfg))) return;
    for (let i = 0; i < 100 && !this.registry.authenticate(this.cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY!); i++) await sleep(20);
    this.logger.log({ msg: 'bootstrap tenant ready', tenantId: this.cfg.TAPEDECK_BOOTSTRAP_TENANT_ID! });
  }
}
