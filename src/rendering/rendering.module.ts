// Rendering: the Chromium pool and screenshot renderer (built from configuration; Chromium starts on
// the first render), the screenshot and player routes and the player's assets. Metrics and readiness
// details report the pool; readiness never fails on the renderer. Shutdown closes the warm replay
// pages, then the browser. Parts by folder: browser-pool/, screenshot/, player/, in-page/ (scripts
// that run in the replaying browser) and shared/ (what screenshot and player both use).
import { Inject, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { HealthService } from '../health/health.service';
import { MetricsService } from '../metrics/metrics.service';
import { RecordingsModule } from '../recordings/recordings.module';
import { BrowserPool } from './browser-pool/browser-pool';
import { AssetsController } from './player/assets.controller';
import { PlayerController } from './player/player.controller';
import { PlayerService } from './player/player.service';
import { PlayerAssets } from './player/player-assets';
import { ScreenshotController } from './screenshot/screenshot.controller';
import { ScreenshotRenderer } from './screenshot/screenshot-renderer';
import { ScreenshotService } from './screenshot/screenshot.service';
import { ThumbnailController } from './thumbnail/thumbnail.controller';
import { ThumbnailService } from './thumbnail/thumbnail.service';
import { ThumbnailCandidatesRepository } from './thumbnail/thumbnail-candidates.repository';
import { ThumbnailSweep } from './thumbnail/thumbnail-sweep';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { RecordingRenderSource } from './shared/recording-render-source';

@Module({
  imports: [RecordingsModule],
  controllers: [ScreenshotController, ThumbnailController, PlayerController, AssetsController],
  providers: [
    {
      provide: BrowserPool,
      inject: [APP_CONFIG],
      useFactory: (cfg: AppConfig) =>
        new BrowserPool({
          chromiumPath: cfg.CHROMIUM_PATH,
          nice: cfg.RENDER_NICE,
          renderThread: cfg.RENDER_THREAD === 'worker',
          concurrency: cfg.RENDER_CONCURRENCY,
          browsers: cfg.RENDER_BROWSERS,
          queueLimit: cfg.RENDER_QUEUE,
          timeoutMs: cfg.RENDER_TIMEOUT_MS,
        }),
    },
    {
      provide: ScreenshotRenderer,
      inject: [BrowserPool, APP_CONFIG, MetricsService, TenantLimiter],
      useFactory: (pool: BrowserPool, cfg: AppConfig, metrics: MetricsService, limits: TenantLimiter) =>
        new ScreenshotRenderer(pool, {
          timeoutMs: cfg.RENDER_TIMEOUT_MS,
          admit: (tenantId, background) => limits.startRender(tenantId, { rate: !background }),
          onRendered: metrics.histogram(
            'tapedeck_render_duration_seconds',
            'Screenshot renders in Chromium, from asking for a browser slot (queue wait included) to the encoded image; image-cache hits and failures not counted',
            [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          ),
        }),
    },
    PlayerAssets,
    RecordingRenderSource,
    ScreenshotService,
    ThumbnailService,
    ThumbnailCandidatesRepository,
    ThumbnailSweep,
    PlayerService,
  ],
  exports: [ThumbnailService],
})
export class RenderingModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly pool: BrowserPool,
    private readonly renderer: ScreenshotRenderer,
    private readonly metrics: MetricsService,
    private readonly health: HealthService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
    private readonly registry: TenantRegistry,
    private readonly thumbnails: ThumbnailService,
    private readonly sweep: ThumbnailSweep,
  ) {}

  onModuleInit(): void {
    const { pool, renderer, metrics } = this;
    // A tenant being deleted leaves no image or page of its recordings in memory (its reads are refused already).
    this.registry.onTenantRefused((tenantId, status) => {
      if (status !== 'suspended') {
        renderer.forgetTenant(tenantId);
        this.thumbnails.forgetTenant(tenantId);
      }
    });
    metrics.counter('tapedeck_render_total', 'Browser renders completed', () => pool.renders);
    metrics.counter('tapedeck_render_failures_total', 'Browser renders that failed (timeouts and crashes included)', () => pool.failures);
    metrics.counter('tapedeck_render_rejected_total', 'Render requests refused with 503: queue full or queue wait too long', () => pool.rejected);
    metrics.counter('tapedeck_render_timeouts_total', 'Render attempts that ran out of RENDER_TIMEOUT_MS', () => pool.timeouts);
    metrics.counter('tapedeck_render_crashes_total', 'Render attempts that a Chromium (browser or page) crash ended', () => pool.crashes);
    metrics.counter('tapedeck_render_browser_launches_total', 'Chromium launches (first use, recycling, crashes)', () => pool.launches);
    metrics.counter('tapedeck_render_image_cache_hits_total', 'Screenshots answered from the encoded-image cache', () => renderer.imageCacheHits);
    metrics.counter('tapedeck_render_warm_page_hits_total', 'Renders that reused a warm replay page', () => renderer.warmHits);
    metrics.counter('tapedeck_render_cold_total', 'Renders that opened a new replay page', () => renderer.coldRenders);
    metrics.counter('tapedeck_thumbnails_rendered_total', 'Poster thumbnails rendered in the background', () => this.thumbnails.stats.rendered);
    metrics.counter('tapedeck_thumbnails_idle_queued_total', 'Recordings queued for a thumbnail by the idle sweep', () => this.sweep.queued);
    metrics.gauge('tapedeck_render_queue_length', 'Render requests waiting for a browser slot', () => pool.queueLength);
    metrics.gauge('tapedeck_render_in_flight', 'Browser slots in use', () => pool.inFlight);
    metrics.gauge(
      'tapedeck_render_browsers',
      'Chromium browsers running for renders (RENDER_BROWSERS at most: tenants rendering at once get their own)',
      () => pool.browsers,
    );
    this.health.register({
      name: 'renderer',
      details: async () => ({
        chromium: this.cfg.CHROMIUM_PATH,
        thread: pool.thread,
        concurrency: this.cfg.RENDER_CONCURRENCY,
        browsers: pool.browsers,
        queueLimit: this.cfg.RENDER_QUEUE,
        inFlight: pool.inFlight,
        queued: pool.queueLength,
        renders: pool.renders,
        failures: pool.failures,
        rejected: pool.rejected,
        crashes: pool.crashes,
        launches: pool.launches,
      }),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.renderer.close();
    await this.pool.close();
  }
}
