// Storage with recording archives (issue #28, docs/archives.md): the long-recording bench's real rrweb
// recordings (a busy page, about 18 MB of JSON per hour; 60 and 180 minutes) and the ingestion bench's
// synthetic batches, each ingested twice over HTTP; one copy is sealed (in this process, as
// `recordings seal` does), the other stays as ingested. Reported per recorded hour: the raw JSON, the
// bytes the servers report for it (TAPEDECK_EVENTS' and the archive bucket's stream bytes, deltas) as
// ingested and as sealed; full reads (GET …/events) of both copies in the same run, and the codec
// measured on the same JSON (gzip 1 and 6, brotli 5: ratio, compress and inflate MB/s).
// Ingestion throughput and CPU per event are the ingestion section's: sealing adds no code to that path.
import { createHash, randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import type { AppConfig } from '../src/config/config';
import { ArchiveStore } from '../src/infrastructure/nats/archive-store';
import { NatsClient } from '../src/infrastructure/nats/nats-connection';
import { RecordingSealer } from '../src/infrastructure/nats/recording-sealer';
import { SealStates } from '../src/infrastructure/nats/seal-states';
import { ARCHIVES_BUCKET, EVENTS_STREAM } from '../src/infrastructure/nats/subjects';
import { CHROMIUM_ARGS } from '../test/harness/browser';
import { BenchSection, get, httpClient, makeBatch, now, sized, sleep, waitForProjector } from './bench-kit';
import { CHECKOUT_MS, Ev, record } from './long-recording.bench';

const MINUTES = sized([60, 180], [2]);
/** The synthetic case: 50-event batches of the ingestion bench, about 20 MB. */
const SYNTHETIC_BATCHES = sized(1500, 40);
const READS = sized(3, 1);
const BATCH_MS = 5_000;
const TARGETS = { sealedShareMax: 0.1, readSpeedupMin: 2 };

const mb = (b: number) => Math.round((b / 1e6) * 100) / 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A recording's events as a recorder sends them: one batch per five seconds. */
function batchesOf(events: Ev[]): Ev[][] {
  const out: Ev[][] = [];
  let cur: Ev[] = [];
  for (const e of events) {
    if (cur.length && e.timestamp - cur[0].timestamp >= BATCH_MS) {
      out.push(cur);
      cur = [];
    }
    cur.push(e);
  }
  if (cur.length) out.push(cur);
  return out;
}

function codecs(json: Buffer) {
  const one = (name: string, z: (b: Buffer) => Buffer, un: (b: Buffer) => Buffer) => {
    let t = now();
    const c = z(json);
    const zMs = now() - t;
    t = now();
    un(c);
    const unMs = now() - t;
    return {
      name,
      percent: Math.round((c.length / json.length) * 1000) / 10,
      compressMBps: Math.round(json.length / 1e3 / zMs),
      inflateMBps: Math.round(json.length / 1e3 / unMs),
    };
  };
  return [
    one('gzip-1', (b) => gzipSync(b, { level: 1 }), gunzipSync),
    one('gzip-6', (b) => gzipSync(b, { level: 6 }), gunzipSync),
    one('brotli-5', (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }), brotliDecompressSync),
  ];
}

export const storageBench: BenchSection = {
  name: 'storage',
  async run(ctx) {
    const { env, log } = ctx;
    const nats = await NatsClient.connect({ NATS_URL: env.natsUrl } as AppConfig, 'tapedeck-bench-storage');
    const archives = new ArchiveStore(nats);
    const sealer = new RecordingSealer(nats, archives, new SealStates(nats), { publishTimeoutMs: 10_000, removeDelayMs: 0 });
    await archives.open();
    const streamBytes = async () => (await nats.jsm.streams.info(EVENTS_STREAM)).state.bytes;
    const bucketBytes = async () => (await nats.jsm.streams.info(`OBJ_${ARCHIVES_BUCKET}`)).state.bytes;
    const http = httpClient(env.baseUrl, 4);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const browser = await chromium.launch({ executablePath: env.chromiumPath, args: CHROMIUM_ARGS });
    try {
      const longest = Math.max(...MINUTES);
      let t = now();
      const recorded = await record(browser, longest, CHECKOUT_MS);
      log(`storage: recorded ${longest} simulated minutes in ${Math.round(now() - t)} ms`);
      const cases = [
        ...MINUTES.map((m) => ({
          name: `rrweb-${m}min`,
          minutes: m,
          batches: batchesOf(recorded.filter((e) => e.timestamp - recorded[0].timestamp <= m * 60_000)),
        })),
        // The ingestion bench's batches, one a second (its timestamps): SYNTHETIC_BATCHES seconds.
        { name: 'ingestion-batches', minutes: SYNTHETIC_BATCHES / 60, batches: Array.from({ length: SYNTHETIC_BATCHES }, (_, i) => makeBatch(i) as Ev[]) },
      ];
      const results = [];
      for (const c of cases) {
        const bodies = c.batches.map((b) => JSON.stringify(b));
        const rawJson = bodies.reduce((a, b) => a + Buffer.byteLength(b), 0);
        const [sealedId, rawId] = [randomUUID(), randomUUID()];
        const s0 = await streamBytes();
        for (const id of [sealedId, rawId])
          for (const body of bodies) {
            const r = await http.call('POST', `/recordings/${id}/events`, env.publicKey, body, false);
            if (r.status !== 200) throw new Error(`ingest ${c.name}: HTTP ${r.status}`);
          }
        const s1 = await streamBytes();
        const ingested = (s1 - s0) / 2;
        await waitForProjector(env, 300_000, log);
        const read = async (id: string) => {
          const hash = createHash('sha256');
          const start = now();
          const r = await get(agent, env.baseUrl, `/recordings/${id}/events`, env.secretKey, false, (chunk) => hash.update(chunk));
          if (r.status !== 200) throw new Error(`read ${c.name}: HTTP ${r.status}`);
          return { mbps: r.bytes / 1e6 / ((now() - start) / 1000), bytes: r.bytes, sha: hash.digest('hex') };
        };
        await read(rawId);
        const o0 = await bucketBytes();
        t = now();
        const outcome = await sealer.seal(env.tenantId, sealedId);
        const sealMs = now() - t;
        if (outcome.status !== 'sealed') throw new Error(`seal ${c.name}: ${outcome.status}`);
        const [s2, o1] = [await streamBytes(), await bucketBytes()];
        const sealed = ingested + (s2 - s1) + (o1 - o0);
        await read(sealedId);
        const rawReads: { mbps: number; bytes: number; sha: string }[] = [];
        const sealedReads: typeof rawReads = [];
        // Alternating, so that both see the same machine load.
        for (let r = 0; r < READS; r++) {
          rawReads.push(await read(rawId));
          await sleep(300);
          sealedReads.push(await read(sealedId));
          await sleep(300);
        }
        const same = sealedReads.every((s) => s.sha === rawReads[0].sha && s.bytes === rawReads[0].bytes);
        const perHour = (b: number) => mb((b * 60) / c.minutes);
        const out = {
          case: c.name,
          minutes: c.minutes,
          batches: c.batches.length,
          rawJsonMB: mb(rawJson),
          perRecordedHourMB: {
            rawJson: perHour(rawJson),
            ingested: perHour(ingested),
            sealed: perHour(sealed),
            sealedStream: perHour(ingested + (s2 - s1)),
            archive: perHour(o1 - o0),
          },
          sealedShareOfRawJson: Math.round((sealed / rawJson) * 1000) / 1000,
          ingestedShareOfRawJson: Math.round((ingested / rawJson) * 1000) / 1000,
          sealSeconds: Math.round(sealMs) / 1000,
          readMBps: {
            unsealed: Math.round(median(rawReads.map((r) => r.mbps)) * 10) / 10,
            sealed: Math.round(median(sealedReads.map((r) => r.mbps)) * 10) / 10,
          },
          readSpeedup: Math.round((median(sealedReads.map((r) => r.mbps)) / median(rawReads.map((r) => r.mbps))) * 100) / 100,
          sameBytes: same,
          codecs: codecs(Buffer.from(`[${bodies.join(',')}]`)),
        };
        log(
          `storage ${c.name}: raw ${out.rawJsonMB} MB, per hour raw ${out.perRecordedHourMB.rawJson} / ingested ${out.perRecordedHourMB.ingested} / sealed ${out.perRecordedHourMB.sealed} MB (${Math.round(out.sealedShareOfRawJson * 1000) / 10} %), reads ${out.readMBps.unsealed} -> ${out.readMBps.sealed} MB/s (x${out.readSpeedup}), same bytes ${same}`,
        );
        results.push(out);
      }
      return {
        targets: TARGETS,
        cases: results,
        met: {
          sealedShare: results.every((r) => r.sealedShareOfRawJson <= TARGETS.sealedShareMax),
          readSpeedup: results.every((r) => r.readSpeedup >= TARGETS.readSpeedupMin),
          sameBytes: results.every((r) => r.sameBytes),
        },
        notes: [
          "bytes are the servers' stream state bytes (deltas), one replica; the archive bucket is a stream of its own (OBJ_tapedeck_archives)",
          'ingestion throughput and CPU per event: see the ingestion section; no code on the ingest path changed with archives',
        ],
      };
    } finally {
      await browser.close();
      http.close();
      agent.destroy();
      await nats.close();
    }
  },
};
