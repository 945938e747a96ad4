// Per-tenant limits (tenant-limiter.service.ts): global, since ingestion, reads and WebSocket
// upgrades all consult them. Their shared state opens at start-up (limit-documents.ts).
import { Global, Module } from '@nestjs/common';
import { ReadModelModule } from '../read-model/read-model.module';
import { LimitDocuments } from './limit-documents';
import { TenantLimiter } from './tenant-limiter.service';

@Global()
@Module({ imports: [ReadModelModule], providers: [LimitDocuments, TenantLimiter], exports: [TenantLimiter] })
export class LimitsModule {}
