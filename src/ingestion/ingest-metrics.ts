import { Injectable } from '@nestjs/common';
import { MetricsService } from '../metrics/metrics.service';

/** Ingestion counters, exported on /metrics. */
@Injectable()
export class IngestMetrics {
  batches = 0;
  duplicates = 0;
  events = 0;
  bytes = 0;

  constructor(private readonly metrics: MetricsService) {
    metrics.counter('tapedeck_ingest_batches_total', 'Batches acknowledged (including duplicates)', () => this.batches);
    metrics.counter('tapedeck_ingest_duplicate_batches_total', 'Batches that JetStream had already stored', () => this.duplicates);
    metrics.counter('tapedeck_ingest_events_total', 'Events stored', () => this.events);
    metrics.counter('tapedeck_ingest_bytes_total', 'Payload bytes stored', () => this.bytes);
  }

  observe(events: number, bytes: number, seconds: number, duplicate: boolean) {
    this.batches++;
    this.metrics.ingestLatency.observe(seconds);
    if (duplicate) {
      this.duplicates++;
      return;
    }
    this.events += events;
    this.bytes += bytes;
  }
}
