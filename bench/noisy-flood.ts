// Tenant A's flood for the noisy-neighbour section, run as a child process so that A's clients do
// not share an event loop (and so a timing) with tenant B's: each `flood` message runs the named
// kinds of flood for `ms` and answers with what A got. A's clients either honour Retry-After (a
// tenant using all its limits allow) or ignore it and pause 50 ms after a refusal (an impatient
// client beyond its limits, not a request flood).
import { randomUUID } from 'node:crypto';
import { CallResult, httpClient, makeBatch, now, sleep } from './bench-kit';

export type FloodKind = 'ingest' | 'bulk' | 'reads' | 'screenshots';

export interface FloodOrder {
  baseUrl: string;
  publicKey: string;
  secretKey: string;
  /** A's recording read by the read flood, and the one rendered by the screenshot flood. */
  readRecording: string;
  shotRecording: string;
  /** Paths of screenshots after the recording id (distinct positions: the image cache never answers). */
  shotPaths: string[];
  kinds: FloodKind[];
  ms: number;
  clients: Record<FloodKind, number>;
  /** Whether a refused client waits for Retry-After (at its limits) or 50 ms (beyond them). */
  retryAfter: 'honoured' | 'ignored';
}

export interface FloodResult {
  seconds: number;
  ingestedEvents: number;
  ingestedBytes: number;
  readBytes: number;
  screenshots: number;
  refusals: Record<string, number>;
}

const REFUSED_PAUSE_MS = 50;
/**
 * A bulk batch: a large page's FullSnapshot and its mutations, 8 MiB (BENCH_BULK_BYTES: another
 * size). Twice the default burst: it passes when A's byte bucket is full, and A then pays it back
 * for 4 s. Batches of 2 MiB show what the service thread costs only before activity labelling was
 * made linear (bench/README.md).
 */
export const BULK_BATCH_BYTES = Number(process.env.BENCH_BULK_BYTES) || 8 * 1024 * 1024;

/** A batch of about `bytes`: Meta, a FullSnapshot of a long list, and mutations of it (what a large page's first batch holds). */
export function bulkBatch(seed: number, bytes = BULK_BATCH_BYTES): string {
  const start = 1_700_000_000_000 + seed * 1000;
  const row = (i: number) => ({
    type: 2,
    tagName: 'li',
    id: 10 + 2 * i,
    attributes: { class: `row row-${i}`, 'data-sku': `sku-${seed}-${i}` },
    childNodes: [{ type: 3, id: 11 + 2 * i, textContent: `Row ${i}: a product name, a short description and a price of ${i % 97}.99` }],
  });
  const rows = Array.from({ length: Math.round(bytes / 218) }, (_, i) => row(i));
  const body = { type: 2, tagName: 'body', id: 4, attributes: {}, childNodes: [{ type: 2, tagName: 'ul', id: 5, attributes: {}, childNodes: rows }] };
  const html = { type: 2, tagName: 'html', id: 2, attributes: {}, childNodes: [{ type: 2, tagName: 'head', id: 3, attributes: {}, childNodes: [] }, body] };
  const events: unknown[] = [
    { type: 4, timestamp: start, data: { href: 'https://shop.example/catalogue', width: 1280, height: 720 } },
    { type: 2, timestamp: start + 1, data: { node: { type: 0, id: 1, childNodes: [html] }, initialOffset: { top: 0, left: 0 } } },
  ];
  for (let i = 0; i < 48; i++) events.push({ type: 3, timestamp: start + 2 + i * 20, data: { source: 1, positions: [{ x: i, y: i, id: 5, timeOffset: 0 }] } });
  return JSON.stringify(events);
}

/** Runs `task` back to back until `until`, pausing after a refusal for the ms it returns. */
async function flat(until: number, task: () => Promise<true | number>) {
  for (let r; now() < until;) if ((r = await task()) !== true) await sleep(Math.min(r, until - now()));
}

let seed = 2_000_000;
let bulkBody: Buffer | undefined;
let shot = 0;

export async function flood(o: FloodOrder): Promise<FloodResult> {
  const http = httpClient(o.baseUrl, 64);
  const r: FloodResult = { seconds: 0, ingestedEvents: 0, ingestedBytes: 0, readBytes: 0, screenshots: 0, refusals: {} };
  const refused = (what: string, res: CallResult) => {
    r.refusals[`${what} ${res.status}`] = (r.refusals[`${what} ${res.status}`] ?? 0) + 1;
    const retryAfter = Number(res.headers['retry-after']);
    return o.retryAfter === 'honoured' && retryAfter > 0 ? retryAfter * 1000 : REFUSED_PAUSE_MS;
  };
  const clients = (kind: FloodKind) => Array.from({ length: o.kinds.includes(kind) ? o.clients[kind] : 0 });
  const started = now();
  const until = started + o.ms;
  await Promise.all([
    ...clients('ingest').map(() =>
      flat(until, async () => {
        const res = await http.call('POST', `/recordings/${randomUUID()}/events`, o.publicKey, JSON.stringify(makeBatch(seed++)));
        return res.status === 200 ? ((r.ingestedEvents += 50), true) : refused('ingest', res);
      }),
    ),
    ...clients('bulk').map(() =>
      flat(until, async () => {
        // One body for all (built and encoded once, 60 ms of this process's CPU; as a string, encoding
        // it again for each request cost this process about 0.4 of a core beyond A's limits): each
        // goes to a new recording, so none is a duplicate.
        bulkBody ??= Buffer.from(bulkBatch(seed++));
        const res = await http.call('POST', `/recordings/${randomUUID()}/events`, o.publicKey, bulkBody);
        return res.status === 200 ? ((r.ingestedEvents += 50), (r.ingestedBytes += BULK_BATCH_BYTES), true) : refused('bulk', res);
      }),
    ),
    ...clients('reads').map(() =>
      flat(until, async () => {
        const res = await http.call('GET', `/recordings/${o.readRecording}/events`, o.secretKey, undefined, false);
        return res.status === 200 ? ((r.readBytes += res.bytes), true) : refused('read', res);
      }),
    ),
    ...clients('screenshots').map(() =>
      flat(until, async () => {
        const res = await http.call('GET', `/recordings/${o.shotRecording}/${o.shotPaths[shot++ % o.shotPaths.length]}`, o.secretKey);
        return res.status === 200 ? (r.screenshots++, true) : refused('screenshot', res);
      }),
    ),
  ]);
  http.close();
  r.seconds = (now() - started) / 1000;
  return r;
}

if (require.main === module) {
  process.on('message', (o: FloodOrder | 'exit') => {
    if (o === 'exit') return process.exit(0);
    flood(o).then(
      (r) => process.send!(r),
      (e: Error) => process.send!({ error: String(e?.stack ?? e) }),
    );
  });
}
