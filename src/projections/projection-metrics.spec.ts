import { MetricsService } from '../metrics/metrics.service';
import { typesOf } from '../metrics/testing/prometheus-text';
import { ProjectionMetrics } from './projection-metrics';

describe('ProjectionMetrics on /metrics', () => {
  it('exports the monotonic per-projection totals as counters and the lag as gauges', async () => {
    const metrics = new MetricsService();
    const projections = new ProjectionMetrics(metrics);
    projections.of('recordings').messages = 12;
    projections.of('recordings').failures = 1;
    projections.watchLag('recordings', async () => ({ pending: 2, ackPending: 1, ackFloorSeq: 10, streamLastSeq: 13, oldestUnprojectedAgeSeconds: 0.5 }));
    const text = await metrics.registry.metrics();
    expect(typesOf(text)).toMatchObject({
      tapedeck_projection_messages_total: 'counter',
      tapedeck_projection_failures_total: 'counter',
      tapedeck_projection_pending_messages: 'gauge',
      tapedeck_projection_lag_seconds: 'gauge',
    });
    expect(text).toMatch(/^tapedeck_projection_messages_total\{projection="recordings"\} 12$/m);
    expect(text).toMatch(/^tapedeck_projection_failures_total\{projection="recordings"\} 1$/m);
    expect(text).toMatch(/^tapedeck_projection_pending_messages\{projection="recordings"\} 3$/m);
    projections.of('recordings').messages = 20;
    expect(await metrics.registry.metrics()).toMatch(/^tapedeck_projection_messages_total\{projection="recordings"\} 20$/m);
  });
});
