// Server-made keyframes (projector role): the maker's own Chromium pool (KEYFRAME_CONCURRENCY
// slots, KEYFRAME_TIMEOUT_MS per recording), the background service, and its counters.
import { Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { ReadModelModule } from '../read-model/read-model.module';
import { BrowserPool } from '../rendering/browser-pool/browser-pool';
import { KeyframeMaker } from './keyframe-maker';
import { ServerKeyframesService } from './server-keyframes.service';

const KEYFRAME_BROWSERS = Symbol('KEYFRAME_BROWSERS');

@Module({
  imports: [ReadModelModule],
  providers: [
    {
      provide: KEYFRAME_BROWSERS,
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig) =>
        new BrowserPool({
          chromiumPath: cfg.CHROMIUM_PATH,
          nice: cfg.RENDER_NICE,
          renderThread: cfg.RENDER_THREAD === 'worker',
          concurrency: Math.max(1, cfg.KEYFRAME_CONCURRENCY),
          queueLimit: 0,
          timeoutMs: cfg.KEYFRAME_TIMEOUT_MS,
        }),
    },
    {
      provide: KeyframeMaker,
      inject: [KEYFRAME_BROWSERS, APP_CONFIG],
      useFactory: (pool: BrowserPool, cfg: AppConfig) => new KeyframeMaker(pool, cfg.KEYFRAME_TIMEOUT_MS),
    },
    ServerKeyframesService,
  ],
  exports: [ServerKeyframesService],
})
export class KeyframesModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly service: ServerKeyframesService,
    private readonly metrics: MetricsService,
    @Inject(KEYFRAME_BROWSERS) private readonly pool: BrowserPool,
  ) {}

  onModuleInit(): void {
    this.metrics.counter('tapedeck_keyframes_made_total', 'Server-made keyframes stored', () => this.service.made);
    this.metrics.counter(
      'tapedeck_keyframes_failed_total',
      'Server-made keyframes that could not be made (stored as failed attempts)',
      () => this.service.failed,
    );
  }

  /**
   * Chromium is closed at once, cutting a replay under way short (up to KEYFRAME_TIMEOUT_MS
   * otherwise): not a failed attempt, the next pass makes its keyframes. Then the pass ends.
   */
  async onApplicationShutdown(): Promise<void> {
    this.service.stop();
    await this.pool.close();
    await this.service.onApplicationShutdown();
  }
}
