// The shared documents of the limits (bucket tapedeck_limits, kept in memory by nats-server: token
// buckets and socket counts that may start afresh), opened at start-up after the streams. Until it
// is open, every change fails and the limits fail open (see leased-bucket.ts).
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { BootService } from '../infrastructure/boot.service';
import { DocumentChange, KvDocuments, SharedDocuments } from '../infrastructure/nats/kv-documents';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { LIMITS_BUCKET } from '../infrastructure/nats/subjects';

/** Documents untouched for this long expire (an idle tenant's bucket is full again by then anyway). */
const IDLE_TTL_MS = 3600_000;

@Injectable()
export class LimitDocuments implements SharedDocuments {
  private docs?: KvDocuments;

  constructor(boot: BootService, nats: NatsClient, @Inject(APP_CONFIG) cfg: AppConfig) {
    boot.addNatsStep({
      what: 'open the limits bucket',
      run: async () => (this.docs = await KvDocuments.open(nats, LIMITS_BUCKET, { replicas: cfg.STREAM_REPLICAS, ttlMs: IDLE_TTL_MS })),
    });
  }

  update<T, R>(key: string, change: DocumentChange<T, R>): Promise<R> {
    if (!this.docs) return Promise.reject(new Error('the limits bucket is not open yet'));
    return this.docs.update(key, change);
  }
}
