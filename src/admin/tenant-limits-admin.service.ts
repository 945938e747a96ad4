// A tenant's limits for the admin API and the CLI: the limits in force, the tenant's own values and
// the defaults; changes go to the tenant's registry record, which every instance sees within a second.
import { Inject, Injectable } from '@nestjs/common';
import { TenantRegistry } from '../auth/tenant-registry';
import { AppError } from '../common/app-error';
import { APP_CONFIG } from '../config/config';
import { defaultLimits, effectiveLimits } from '../domain/tenant-limits';
import type { Tenant } from '../auth/tenant-records';
import type { LimitsView, UpdateLimitsInput } from './limits.dto';

export type LimitsStore = Pick<TenantRegistry, 'tenant' | 'setLimits'>;
export type LimitsConfig = Parameters<typeof defaultLimits>[0];

@Injectable()
export class TenantLimitsAdmin {
  constructor(
    @Inject(TenantRegistry) private readonly store: LimitsStore,
    @Inject(APP_CONFIG) private readonly cfg: LimitsConfig,
  ) {}

  view(tenantId: string): LimitsView {
    const t = this.store.tenant(tenantId);
    if (!t) throw new AppError('not_found', `No tenant ${tenantId}`);
    return this.viewOf(t);
  }

  async update(tenantId: string, input: UpdateLimitsInput): Promise<LimitsView> {
    this.view(tenantId);
    return this.viewOf(await this.store.setLimits(tenantId, input));
  }

  private viewOf(t: Tenant): LimitsView {
    const defaults = defaultLimits(this.cfg);
    return { tenantId: t.id, limits: effectiveLimits(defaults, t.limits), own: t.limits ?? {}, defaults };
  }
}
