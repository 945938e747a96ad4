import { Module } from '@nestjs/common';
import { AdminKeysController } from './admin-keys.controller';
import { AdminSigningKeysController } from './admin-signing-keys.controller';
import { AdminTenantsController } from './admin-tenants.controller';
import { AdminTokenGuard } from './admin-token.guard';
import { TenantAdmin } from './tenant-admin.service';

/** Admin HTTP API under /admin (tenants, API keys, signing keys); off (404) without TAPEDECK_ADMIN_TOKEN. */
@Module({
  controllers: [AdminTenantsController, AdminKeysController, AdminSigningKeysController],
  providers: [TenantAdmin, AdminTokenGuard],
})
export class AdminModule {}
