import { Module } from '@nestjs/common';
import { AdminKeysController } from './admin-keys.controller';
import { AdminSigningKeysController } from './admin-signing-keys.controller';
import { AdminTenantLifecycleController } from './admin-tenant-lifecycle.controller';
import { AdminTenantsController } from './admin-tenants.controller';
import { AdminTokenGuard } from './admin-token.guard';
import { TenantAdmin } from './tenant-admin.service';
import { TenantDeletionService } from './tenant-deletion.service';

/** Admin HTTP API under /admin (tenants and their lifecycle, API keys, signing keys); off (404) without TAPEDECK_ADMIN_TOKEN. */
@Module({
  controllers: [AdminTenantsController, AdminTenantLifecycleController, AdminKeysController, AdminSigningKeysController],
  providers: [TenantAdmin, TenantDeletionService, AdminTokenGuard],
})
export class AdminModule {}
