// GET /recordings/{id}/events for one recording of about 200 MB: throughput (response bytes per
// second, to the last byte), the service's RSS sampled every 50 ms during the read, and the CPU the
// service, nats-server, clickhouse-server and the reader used per second of the read. The recording
// is seeded through the service's event store (the messages ingestion writes), 50 events per batch;
// a small recording read twice first stands for the reads a running service has served before.
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import {
  appendEvents,
  benchEventStore,
  BenchSection,
  cpuMeter,
  get,
  makeBatch,
  now,
  pool,
  rssMiB,
  sampleRss,
  sized,
  sleep,
  waitForProjector,
} from './bench-kit';

const TARGET_BYTES = Number(process.env.BENCH_RETRIEVAL_MB ?? sized(200, 1)) * 1e6;
const EVENTS_PER_BATCH = 50;
const PUBLISH_IN_FLIGHT = 8;
const READS = sized(3, 1);
/** A small recording (~5 MB) read twice before the measured reads. */
const WARMUP_BATCHES = sized(300, 10);
const MARK = Buffer.from('"originalTimestamp":');

/** Counts a marker in a stream of chunks (a marker may straddle two chunks). */
function counter() {
  let tail = Buffer.alloc(0);
  let n = 0;
  return {
    add(c: Buffer) {
      const b = tail.length ? Buffer.concat([tail, c]) : c;
      for (let i = b.indexOf(MARK); i !== -1; i = b.indexOf(MARK, i + MARK.length)) n++;
      tail = b.subarray(Math.max(0, b.length - MARK.length + 1));
    },
    get count() {
      return n;
    },
  };
}

export const retrievalBench: BenchSection = {
  name: 'retrieval',
  async run(ctx) {
    const { env, log, pids } = ctx;
    const recordingId = randomUUID();
    const batchBytes = JSON.stringify(makeBatch(0, EVENTS_PER_BATCH)).length;
    const batches = Math.ceil(TARGET_BYTES / batchBytes);
    log(`retrieval: seeding ${batches} batches (${Math.round((batches * batchBytes) / 1e6)} MB) into one recording`);
    const { store, close } = await benchEventStore(env);
    let publishMs: number;
    const warmupId = randomUUID();
    try {
      await pool(WARMUP_BATCHES, PUBLISH_IN_FLIGHT, (i) => appendEvents(store, env.tenantId, warmupId, makeBatch(i, EVENTS_PER_BATCH)).then(() => undefined));
      publishMs = await pool(batches, PUBLISH_IN_FLIGHT, (i) =>
        appendEvents(store, env.tenantId, recordingId, makeBatch(1_000_000 + i, EVENTS_PER_BATCH)).then(() => undefined),
      );
    } finally {
      await close();
    }
    log(`  seeded in ${Math.round(publishMs)} ms`);
    // The projector (in the same service process) digests the 200 MB burst first; reads do not
    // touch ClickHouse, but on 2 shared cores a read beside the catch-up measures both.
    const catchUpMs = await waitForProjector(env, 120_000);
    log(`  projector caught up ${Math.round(catchUpMs)} ms after the last publish`);
    const pid = env.pids.service;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // A service that has served reads before (JIT-compiled read path, grown heap), as in production;
    // the first measured read is still the first read of the big recording.
    for (let r = 0; r < 2; r++) await get(agent, env.baseUrl, `/recordings/${warmupId}/events`, env.secretKey, false);
    await sleep(1000);
    const reads = [];
    for (let r = 0; r < READS; r++) {
      const rssBefore = rssMiB(pid);
      const sampler = sampleRss(pid, 50);
      const events = counter();
      let firstByteMs = NaN;
      const meter = cpuMeter(pids);
      const t = now();
      const res = await get(agent, env.baseUrl, `/recordings/${recordingId}/events`, env.secretKey, false, (c) => {
        if (Number.isNaN(firstByteMs)) firstByteMs = now() - t;
        events.add(c);
      });
      const ms = now() - t;
      const rss = sampler.stop();
      // CPU seconds per wall second of the read (1.0 = one core busy): who the read waits for.
      const { client, ...stack } = meter.used();
      const cores = Object.fromEntries(Object.entries({ ...stack, reader: client }).map(([k, used]) => [k, Math.round((used / ms) * 100) / 100]));
      if (res.status !== 200) throw new Error(`read: ${res.status}`);
      const read = {
        seconds: Math.round(ms) / 1000,
        firstByteMs: Math.round(firstByteMs),
        responseMB: Math.round(res.bytes / 1e5) / 10,
        mbPerSecond: Math.round((res.bytes / 1e6 / (ms / 1000)) * 10) / 10,
        events: events.count,
        rssMiB: { before: rssBefore, max: Math.max(...rss), after: rss[rss.length - 1], samples: rss.length },
        cores,
      };
      log(
        `  read ${r + 1}: ${read.mbPerSecond} MB/s, ${read.events} events, RSS ${read.rssMiB.before} -> max ${read.rssMiB.max} MiB, cores busy: service ${cores.service}, nats ${cores.nats}, clickhouse ${cores.clickhouse}, reader ${cores.reader}`,
      );
      reads.push(read);
      await sleep(1000);
    }
    agent.destroy();
    return {
      storedMB: Math.round((batches * batchBytes) / 1e5) / 10,
      batches,
      eventsPerBatch: EVENTS_PER_BATCH,
      expectedEvents: batches * EVENTS_PER_BATCH,
      seedMs: Math.round(publishMs),
      projectorCatchUpMs: Math.round(catchUpMs),
      reads,
      target: '>= 100 MB/s, RSS flat (growth far below the recording size)',
    };
  },
};
