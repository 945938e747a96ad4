import { retryDelayMs } from './backoff';
import type { Projection, ProjectionMessage, ProjectionOutput } from './projection';
import type { ProjectionStats } from './projection-metrics';
import type { DeletedRecording, Delivery, FetchWait, ProjectionLag, ProjectionSink, ProjectionSource } from './projection-ports';
import { ProjectorRunner, RunnerOptions } from './projector-runner';

type Log = string[];

class FakeDelivery implements Delivery {
  acked = false;
  naks: number[] = [];
  constructor(
    readonly message: ProjectionMessage,
    private readonly log: Log,
    readonly deliveryCount = 1,
  ) {}
  ack() {
    this.acked = true;
    this.log.push(`ack ${this.message.seq}`);
  }
  nak(delayMs: number) {
    this.naks.push(delayMs);
    this.log.push(`nak ${this.message.seq} ${delayMs}`);
  }
  working() {}
}

class FakeSink implements ProjectionSink {
  failNext = 0;
  readyAnswers: boolean[] = [];
  constructor(private readonly log: Log) {}
  async ready() {
    const r = this.readyAnswers.shift() ?? true;
    this.log.push(`ready ${r}`);
    return r;
  }
  async insert(table: string, rows: unknown[]) {
    if (this.failNext > 0) {
      this.failNext--;
      this.log.push(`insert-fail ${table}`);
      throw new Error('ClickHouse: connection refused');
    }
    this.log.push(`insert ${table} ${rows.length}`);
  }
  async deleteRecordings(table: string, recordings: DeletedRecording[]) {
    this.log.push(`delete ${table} ${recordings.map((r) => `${r.tenantId}/${r.recordingId}<${r.beforeSeq}`).join(' ')}`);
  }
}

/** Serves scripted fetch results; aborts the run once the script is used up. */
class FakeSource implements ProjectionSource {
  ensures = 0;
  fetchSizes: number[] = [];
  waits: FetchWait[] = [];
  failBodies = 0;
  constructor(
    private readonly log: Log,
    readonly script: (() => Delivery[])[],
    private readonly abort: AbortController,
  ) {}
  async ensure() {
    this.ensures++;
    this.log.push('ensure');
  }
  async fetch(max: number, wait: FetchWait) {
    this.fetchSizes.push(max);
    this.waits.push(wait);
    const next = this.script.shift();
    if (!next) {
      this.abort.abort();
      return [];
    }
    return next();
  }
  async loadBodies() {
    if (this.failBodies > 0) {
      this.failBodies--;
      throw new Error('NATS timeout');
    }
  }
  async lag(): Promise<ProjectionLag> {
    return { pending: 0, ackPending: 0, ackFloorSeq: 0, streamLastSeq: 0, oldestUnprojectedAgeSeconds: 0 };
  }
}

const msg = (seq: number): ProjectionMessage => ({ seq, subject: `td.rec.t.r.ev`, timeMs: seq, headers: {} });

/** Rows in two tables per message, a deletion when the seq is a multiple of 10, seq 99 skipped. */
const projection: Projection = {
  name: 'fake',
  filterSubject: 'td.rec.>',
  tables: ['a', 'b'],
  bodyKinds: [],
  apply(messages): ProjectionOutput {
    const ok = messages.filter((m) => m.seq !== 99);
    return {
      rows: { a: ok.map((m) => ({ seq: m.seq })), b: ok.map((m) => ({ seq: m.seq })), empty: [] },
      deletions: ok.filter((m) => m.seq % 10 === 0).map((m) => ({ tables: ['a'], tenantId: 't', recordingId: 'r', beforeSeq: m.seq })),
      skipped: messages.filter((m) => m.seq === 99).map((m) => ({ seq: m.seq, reason: 'bad' })),
    };
  },
};

const newStats = (): ProjectionStats => ({ batches: 0, messages: 0, rows: 0, skipped: 0, failures: 0, consecutiveFailures: 0, exhausted: 0 });
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

function setup(options: Partial<RunnerOptions> = {}) {
  const log: Log = [];
  const abort = new AbortController();
  const sink = new FakeSink(log);
  const source = new FakeSource(log, [], abort);
  const stats = newStats();
  const sleeps: number[] = [];
  const runner = new ProjectorRunner(
    { projection, source, sink, stats, logger: quiet, sleep: async (ms) => void sleeps.push(ms) },
    { batch: 100, expiresMs: 1000, lingerMs: 100, maxDeliver: 20, ...options },
  );
  const deliveries = (seqs: number[], count = 1) => seqs.map((s) => new FakeDelivery(msg(s), log, count));
  return { log, abort, sink, source, stats, sleeps, runner, deliveries };
}

describe('ProjectorRunner', () => {
  it('writes one insert per table, then one deletion per table, and acks only afterwards', async () => {
    const { runner, log, stats, deliveries } = setup();
    const ds = deliveries([1, 2, 10, 20]);
    expect(await runner.handle(ds)).toBe(true);
    expect(log).toEqual(['insert a 4', 'insert b 4', 'delete a t/r<10 t/r<20', 'ack 1', 'ack 2', 'ack 10', 'ack 20']);
    expect(stats).toMatchObject({ batches: 1, messages: 4, rows: 8, failures: 0 });
  });

  it('acks messages that produce no rows (skipped), and counts them', async () => {
    const { runner, stats, deliveries } = setup();
    const ds = deliveries([99]);
    expect(await runner.handle(ds)).toBe(true);
    expect(ds[0].acked).toBe(true);
    expect(stats.skipped).toBe(1);
  });

  it('naks every message with a growing delay when a write fails, and never acks them', async () => {
    const { runner, sink, stats, deliveries } = setup();
    sink.failNext = 4; // both tables of two batches
    const first = deliveries([1, 2]);
    expect(await runner.handle(first)).toBe(false);
    expect(first.map((d) => [d.acked, d.naks])).toEqual([
      [false, [retryDelayMs(1)]],
      [false, [retryDelayMs(1)]],
    ]);
    const second = deliveries([1, 2], 2);
    expect(await runner.handle(second)).toBe(false);
    expect(second[0].naks).toEqual([retryDelayMs(2)]);
    expect(retryDelayMs(2)).toBeGreaterThan(retryDelayMs(1));
    expect(stats).toMatchObject({ failures: 2, consecutiveFailures: 2, batches: 0 });
    expect(stats.lastError).toMatch(/connection refused/);
    expect(await runner.handle(deliveries([1, 2], 3))).toBe(true);
    expect(stats.consecutiveFailures).toBe(0);
  });

  it('naks when payloads cannot be loaded', async () => {
    const { runner, source, deliveries } = setup();
    source.failBodies = 1;
    const ds = deliveries([5]);
    expect(await runner.handle(ds)).toBe(false);
    expect(ds[0].naks).toHaveLength(1);
  });

  it('reports messages nak’ed on their last allowed delivery', async () => {
    const { runner, sink, stats, deliveries } = setup();
    sink.failNext = 1;
    await runner.handle([...deliveries([1], 20), ...deliveries([2], 3)]);
    expect(stats.exhausted).toBe(1);
  });

  it('after a failure waits for the sink, then fetches half the failed batch until all of it is projected', async () => {
    const { runner, sink, source, log, abort, deliveries, sleeps } = setup();
    sink.failNext = 1;
    sink.readyAnswers = [false, false, true];
    const script = [
      () => deliveries([1, 2, 3, 4, 5, 6, 7]),
      () => deliveries([41, 42]), // later messages succeeding say nothing about the failed ones
      () => deliveries([1, 2, 3]),
      () => deliveries([4, 5, 6]),
      () => deliveries([7]),
      () => deliveries([43]),
    ];
    source.script.push(...script);
    await runner.run(abort.signal, true);
    // 7 failed: 3 at a time until all 7 are projected, then the full batch again.
    expect(source.fetchSizes).toEqual([100, 3, 3, 3, 3, 100, 100]);
    expect(log.filter((l) => l.startsWith('ready'))).toEqual(['ready false', 'ready false', 'ready true']);
    expect(sleeps[0]).toBe(retryDelayMs(1));
    expect(log.filter((l) => l.startsWith('ack')).map((l) => Number(l.split(' ')[1]))).toEqual([41, 42, 1, 2, 3, 4, 5, 6, 7, 43]);
  });

  it('isolates a message that always fails within a few batches, and projects the others once each', async () => {
    // A model of the consumer: the oldest available messages first; a nak'ed one is available again
    // two fetches later; one delivered max_deliver times is dropped (exhausted), as JetStream does.
    const log: Log = [];
    const abort = new AbortController();
    const POISON = 37;
    const pending = new Map<number, { deliveries: number; availableAt: number }>();
    for (let seq = 1; seq <= 300; seq++) pending.set(seq, { deliveries: 0, availableAt: 0 });
    const acked = new Map<number, number>();
    let clock = 0;
    const fetchSizes: number[] = [];
    const source: ProjectionSource = {
      ensure: async () => undefined,
      loadBodies: async () => undefined,
      lag: async () => ({ pending: 0, ackPending: 0, ackFloorSeq: 0, streamLastSeq: 0, oldestUnprojectedAgeSeconds: 0 }),
      fetch: async (max: number) => {
        fetchSizes.push(max);
        clock++;
        if (pending.size === 0 || clock > 1000) {
          abort.abort();
          return [];
        }
        const ready = [...pending].filter(([, p]) => p.availableAt <= clock).slice(0, max);
        return ready.map(([seq, p]) => {
          p.deliveries++;
          p.availableAt = Infinity; // in flight
          const count = p.deliveries;
          return {
            message: msg(seq),
            deliveryCount: count,
            ack: () => {
              acked.set(seq, count);
              pending.delete(seq);
            },
            nak: () => {
              if (count >= 20) pending.delete(seq);
              else p.availableAt = clock + 2;
            },
            working: () => undefined,
          };
        });
      },
    };
    const sink: ProjectionSink = {
      ready: async () => true,
      insert: async (table: string, rows: unknown[]) => {
        if ((rows as { seq: number }[]).some((r) => r.seq === POISON)) throw new Error('Cannot parse input');
        log.push(`insert ${table} ${rows.length}`);
      },
      deleteRecordings: async () => undefined,
    };
    const stats = newStats();
    const runner = new ProjectorRunner(
      { projection, source, sink, stats, logger: quiet, sleep: async () => undefined },
      { batch: 100, expiresMs: 1000, lingerMs: 100, maxDeliver: 20 },
    );
    await runner.run(abort.signal, true);

    expect([...acked.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1).filter((s) => s !== POISON));
    expect(stats.exhausted).toBe(1);
    // Its batch-mates were redelivered a few times at most (log2 of the batch), far from max_deliver.
    expect(Math.max(...acked.values())).toBeLessThanOrEqual(8);
    expect(fetchSizes.slice(0, 4)).toEqual([100, 50, 50, 25]);
    // One at a time for the failed batch's 100 messages would have taken over 100 fetches.
    expect(fetchSizes.length).toBeLessThan(60);
  });

  it('re-ensures the consumer when a fetch fails (consumer deleted, NATS restarted) and carries on', async () => {
    const { runner, source, log, abort, deliveries } = setup();
    const script = [
      () => {
        throw new Error('consumer not found');
      },
      () => deliveries([7]),
    ];
    source.script.push(...script);
    await runner.run(abort.signal, true);
    expect(source.ensures).toBe(1);
    expect(log).toContain('ack 7');
    expect(log.indexOf('ensure')).toBeLessThan(log.indexOf('ack 7'));
  });

  it('asks the source to hold a partial batch until the write interval after the previous write began', async () => {
    const clock = jest.spyOn(Date, 'now').mockReturnValue(10_000);
    try {
      const { runner, source, abort, deliveries } = setup({ writeIntervalMs: 500 });
      source.script.push(
        () => deliveries([1]),
        () => {
          clock.mockReturnValue(10_700);
          return [];
        },
        () => deliveries([2]),
      );
      await runner.run(abort.signal, true);
      // Nothing written yet: only the linger. Then 500 ms after the write of 1 began, an empty pull
      // (nothing written) moving nothing, and 500 ms after the write of 2.
      expect(source.waits.map((w) => w.notBefore)).toEqual([undefined, 10_500, 10_500, 11_200]);
      expect(source.waits.every((w) => w.lingerMs === 100 && w.expiresMs === 1000)).toBe(true);
    } finally {
      clock.mockRestore();
    }
  });

  it('without a write interval, asks for the linger alone', async () => {
    const { runner, source, abort, deliveries } = setup({ writeIntervalMs: 0 });
    source.script.push(
      () => deliveries([1]),
      () => deliveries([2]),
    );
    await runner.run(abort.signal, true);
    expect(source.waits).toEqual([
      { expiresMs: 1000, lingerMs: 100 },
      { expiresMs: 1000, lingerMs: 100 },
      { expiresMs: 1000, lingerMs: 100 },
    ]);
  });

  it('ensures the consumer first when started without it', async () => {
    const { runner, source, abort } = setup();
    await runner.run(abort.signal);
    expect(source.ensures).toBe(1);
    expect(source.waits[0]).toEqual({ expiresMs: 1000, lingerMs: 100 });
  });
});
