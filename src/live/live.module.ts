import { Module } from '@nestjs/common';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { RecordingTails } from '../infrastructure/nats/recording-tail';
import { LiveFeed } from './live-feed.service';
import { LiveHub } from './live-hub';
import { WatchSignals } from './watch-signals';

/** Live event feeds (docs/live.md): the hub of followed recordings and each viewer's feed. */
@Module({
  providers: [{ provide: RecordingTails, useFactory: (n: NatsClient) => new RecordingTails(n), inject: [NatsClient] }, LiveHub, LiveFeed, WatchSignals],
  exports: [LiveFeed, LiveHub, WatchSignals],
})
export class LiveModule {}
