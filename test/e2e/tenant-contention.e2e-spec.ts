// The contention guard (docs/limits.md, Contention): while the CPU pressure is above its threshold
// and another tenant works within its limits, a tenant pressing against its ingestion rate is slowed
// below it; alone on the instance, or once the pressure is low, it gets its rate. The pressure comes
// from a file in /proc/pressure/cpu's format that this spec writes (CPU_PRESSURE_FILE), so that the
// machine's own load does not decide the outcome.
import { randomUUID } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PrivateStack } from '../harness/private-stack';
import { limitedTenant, paddedEvents, post } from './limits-fixtures';

const RATE = 200; // A's events per second
const BATCH = 10;

let stack: PrivateStack;
let base: string;
let file: string;
/** The share of wall time the fake file reports as stalled from now on. */
let pressure = 0;
let stalledUs = 0;
let ticker: NodeJS.Timeout | undefined;

/**
 * Replaces the file whole (written beside it, then renamed), as the kernel's is: a read between a
 * truncation and a write would find it empty, and a service that finds it so at its start runs
 * without the guard (a CI run failed so, A at its full rate).
 */
const writePressure = () => {
  writeFileSync(`${file}.next`, `some avg10=0.00 avg60=0.00 avg300=0.00 total=${Math.round(stalledUs)}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n`);
  renameSync(`${file}.next`, file);
};

beforeAll(async () => {
  stack = await PrivateStack.start({
    env: {
      TENANT_INGEST_EVENTS_PER_SECOND: '0',
      TENANT_INGEST_BYTES_PER_SECOND: '0',
      TENANT_READ_BYTES_PER_SECOND: '0',
      TENANT_STORED_BYTES: '0',
      TENANT_BURST_SECONDS: '1',
    },
  });
  file = join(stack.dir, 'cpu-pressure');
  writePressure();
  let last = Date.now();
  ticker = setInterval(() => {
    const now = Date.now();
    stalledUs += pressure * (now - last) * 1000;
    last = now;
    writePressure();
  }, 20);
  base = (await stack.startService('contention', { TENANT_CPU_PRESSURE: '0.4', CPU_PRESSURE_FILE: file })).url;
  // The guard is on (it is off when the file could not be read at the start): its gauge is exported.
  expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^tapedeck_cpu_pressure /m);
}, 120_000);

afterAll(async () => {
  clearInterval(ticker);
  await stack?.close();
});

/** A posts batches from 4 clients for `ms` (a refused one waits 100 ms); B, when given, one batch every 100 ms. Counts what each got in the last `lastMs`. */
async function work(ms: number, lastMs: number, a: string, b?: string) {
  const end = Date.now() + ms;
  const from = end - lastMs;
  const out = { aEvents: 0, aRefusals: [] as string[], bRefused: 0 };
  const recA = randomUUID();
  const recB = randomUUID();
  await Promise.all([
    ...Array.from({ length: 4 }, async () => {
      while (Date.now() < end) {
        const r = await post(base, a, recA, paddedEvents(BATCH, 100));
        if (r.status === 200 && Date.now() >= from) out.aEvents += BATCH;
        if (r.status === 429) {
          out.aRefusals.push(r.text);
          await sleep(100);
        }
      }
    }),
    (async () => {
      while (b && Date.now() < end) {
        const r = await post(base, b, recB, paddedEvents(BATCH, 100));
        if (r.status !== 200) out.bRefused++;
        await sleep(100);
      }
    })(),
  ]);
  return { ...out, aRate: out.aEvents / (lastMs / 1000) };
}

describe('the contention guard', () => {
  it('slows a tenant at its rate while the CPU is contended and another tenant works, never the other, and gives the rate back', async () => {
    const a = await limitedTenant(stack, { ingestEventsPerSecond: RATE });
    const b = await limitedTenant(stack, { ingestEventsPerSecond: 100_000 });

    // Contended, A alone: there is no one to protect, A gets its rate.
    pressure = 0.9;
    const alone = await work(3000, 2000, a.publicKey);
    expect(alone.aRate).toBeGreaterThan(RATE * 0.8);
    expect(alone.aRefusals.filter((t) => t.includes('slowed'))).toEqual([]);

    // Contended, B working within its limits: A is slowed well below its rate, B is not.
    const both = await work(4000, 2000, a.publicKey, b.publicKey);
    expect(both.aRate).toBeLessThan(RATE * 0.5);
    expect(both.bRefused).toBe(0);
    expect(
      both.aRefusals.some((t) => /\(limit ingestEventsPerSecond\); slowed to \d+% of it while this instance's CPU is contended; retry later$/.test(t)),
    ).toBe(true);

    // The pressure gone: A gets its rate back while B still works.
    pressure = 0;
    const after = await work(5000, 1500, a.publicKey, b.publicKey);
    expect(after.aRate).toBeGreaterThan(RATE * 0.8);
    expect(after.bRefused).toBe(0);
  }, 60_000);
});
