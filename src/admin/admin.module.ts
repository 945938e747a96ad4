import { Module } from '@nestjs/common';
import { AdminKeysController } from './admin-keys.controller';
import { AdminLimitsController } from './admin-limits.controller';
import { AdminSigningKeysController } from './admin-signing-keys.controller';
import { AdminTenantLifecycleController } from './admin-tenant-lifecycle.controller';
import { AdminTenantsController } from './admin-tenants.controller';
import { AdminTokenGuard } from './admin-token.guard';
import { TenantAdmin } from './tenant-admin.service';
import { TenantDeletionService } from './tenant-deletion.service';
import { TenantLimitsAdmin } from './tenant-limits-admin.service';

/** Admin HTTP API under /admin (tenants, their limits and lifecycle, API keys, signing keys); off (404) without TAPEDECK_ADMIN_TOKEN. */
@Module({
  controllers: [AdminTenantsController, AdminTenantLifecycleController, AdminLimitsController, AdminKeysController, AdminSigningKeysController],
  providers: [TenantAdmin, TenantDeletionService, TenantLimitsAdmin, AdminTokenGuard],
})
export class AdminModule {}
