// Tenants and authentication: the tenant registry (opened at start-up with the bootstrap tenant, see
// tenant-registry.boot.ts), API key and presigned-link checks. Global: every feature authenticates.
import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { AuthGuard } from './auth.guard';
import { ConsoleSessions } from './console-sessions';
import { Authenticator } from './authenticator';
import { LinkSigner } from './link-signer';
import { TenantRegistry } from './tenant-registry';
import { TenantRegistryBoot } from './tenant-registry.boot';

@Global()
@Module({
  providers: [
    { provide: TenantRegistry, useFactory: (n: NatsClient, cfg: AppConfig) => new TenantRegistry(n, cfg.STREAM_REPLICAS), inject: [NatsClient, APP_CONFIG] },
    TenantRegistryBoot,
    Authenticator,
    AuthGuard,
    LinkSigner,
    ConsoleSessions,
  ],
  exports: [TenantRegistry, Authenticator, AuthGuard, LinkSigner, ConsoleSessions],
})
export class AuthModule {}
