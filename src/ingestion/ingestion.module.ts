import { Module } from '@nestjs/common';
import { LiveModule } from '../live/live.module';
import { IngestMetrics } from './ingest-metrics';
import { IngestionController, IngestionQueryController } from './ingestion.controller';
import { IngestionService } from './ingestion.service';
import { WebSocketIngestion } from './websocket-ingestion';

@Module({
  imports: [LiveModule],
  controllers: [IngestionController, IngestionQueryController],
  providers: [IngestionService, IngestMetrics, WebSocketIngestion],
  exports: [IngestionService, IngestMetrics],
})
export class IngestionModule {}
