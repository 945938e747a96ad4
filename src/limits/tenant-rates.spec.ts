import { AppError, statusOf } from '../common/app-error';
import { OverLimit, rateLimited, TenantRates } from './tenant-rates';
import { MemoryDocuments } from './testing/memory-documents';

describe('TenantRates', () => {
  it('does nothing for an unlimited (0) limit', async () => {
    const docs = new MemoryDocuments();
    const r = new TenantRates(docs, 1, jest.fn());
    expect(await r.take('t', 'ingestEventsPerSecond', 0, 1e9)).toBe(0);
    expect(docs.writes).toBe(0);
  });

  it('takes every cost or none, naming the limit that refused in a 429 with a retry hint', async () => {
    const docs = new MemoryDocuments();
    const r = new TenantRates(docs, 1, jest.fn());
    const costs = (events: number, bytes: number) => [
      { limit: 'ingestEventsPerSecond' as const, value: 100, cost: events },
      { limit: 'ingestBytesPerSecond' as const, value: 1000, cost: bytes },
    ];
    await r.takeAll('t', costs(50, 900));
    const refusal = await r.takeAll('t', costs(40, 500)).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(OverLimit);
    expect(refusal).toMatchObject({ limit: 'ingestBytesPerSecond', retryAfterSeconds: 1 });
    expect(statusOf((refusal as AppError).code)).toBe(429);
    expect((refusal as Error).message).toBe(
      'Ingestion rate limit reached: this tenant may use 1000 bytes per second (limit ingestBytesPerSecond); retry later',
    );
    // The 40 events the refused batch took were given back: 50 are left of the burst of 100.
    await r.takeAll('t', costs(50, 0));
    expect(() => r.assertOpen('t', 'ingestEventsPerSecond', 100)).not.toThrow();
  });

  it('refuses at once, before any parsing, once a refusal is known', async () => {
    const r = new TenantRates(new MemoryDocuments(), 1, jest.fn());
    await expect(r.takeAll('t', [{ limit: 'readBytesPerSecond', value: 10, cost: 11 }])).resolves.toBeUndefined();
    await expect(r.takeAll('t', [{ limit: 'readBytesPerSecond', value: 10, cost: 10 }])).rejects.toThrow(/Read bandwidth limit reached.*readBytesPerSecond/);
    expect(() => r.assertOpen('t', 'readBytesPerSecond', 10)).toThrow(OverLimit);
    expect(() => r.assertOpen('other', 'readBytesPerSecond', 10)).not.toThrow();
  });
});

describe('rateLimited', () => {
  it('names the limit and its value, and a slowed share after the name', () => {
    expect(rateLimited('ingestEventsPerSecond', 5000, 1.5).message).toBe(
      'Ingestion rate limit reached: this tenant may use 5000 events per second (limit ingestEventsPerSecond); retry later',
    );
    const slowed = rateLimited('rendersPerSecond', 5, 2, 0.237);
    expect(slowed.message).toBe(
      "Render rate limit reached: this tenant may use 5 renders per second (limit rendersPerSecond); slowed to 24% of it while this instance's CPU is contended; retry later",
    );
    expect(slowed.limit).toBe('rendersPerSecond');
  });
});
