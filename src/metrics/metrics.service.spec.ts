import { MetricsService } from './metrics.service';
import { typesOf } from './testing/prometheus-text';

describe('MetricsService', () => {
  it('exports counters as TYPE counter with the value read at scrape time, and gauges as gauges', async () => {
    const metrics = new MetricsService();
    let done = 0;
    metrics.counter('test_things_total', 'Things done', () => done);
    metrics.gauge('test_in_flight', 'Things in flight', () => 3);
    done = 5;
    let text = await metrics.registry.metrics();
    expect(typesOf(text)).toMatchObject({ test_things_total: 'counter', test_in_flight: 'gauge' });
    expect(text).toMatch(/^# HELP test_things_total Things done$/m);
    expect(text).toMatch(/^test_things_total 5$/m);
    expect(text).toMatch(/^test_in_flight 3$/m);
    done = 7;
    text = await metrics.registry.metrics();
    expect(text).toMatch(/^test_things_total 7$/m);
  });
});
