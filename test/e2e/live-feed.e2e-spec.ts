// The live event feed (GET /recordings/{id}/events?live=true, docs/live.md) on a private stack with
// two instances, one nats-server and ClickHouse: the feed starts at the latest keyframe, then brings
// every stored batch once, in order, including batches ingested through the other instance; a
// reconnect with Last-Event-ID gets exactly what it missed; liveness changes are told; a presigned
// link alone opens it and its expiry ends it; a deletion ends it; a viewer that does not read is
// dropped with a reason; a tenant's live viewers are limited (429 with Retry-After).
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { presignQuery, sign } from '../../src/auth/presign';
import { api, sampleEvents } from '../harness/http';
import { PrivateStack } from '../harness/private-stack';
import { SseClient } from '../harness/sse';

const IDLE_SECONDS = 3;
const VIEWERS = 4;
let stack: PrivateStack;
let a: string;
let b: string;
const open: SseClient[] = [];

beforeAll(async () => {
  stack = await PrivateStack.start({
    env: { LIVE_IDLE_SECONDS: String(IDLE_SECONDS), TENANT_LIVE_VIEWERS: String(VIEWERS), LIVE_VIEWER_BUFFER_BYTES: String(256 * 1024) },
  });
  try {
    a = (await stack.startService('live-a')).url;
    b = (await stack.startService('live-b')).url;
  } catch (e) {
    await stack.close();
    throw e;
  }
}, 120_000);

afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

afterAll(async () => {
  await stack?.close();
});

const post = (base: string, id: string, events: unknown) =>
  api(`/recordings/${id}/events`, {
    method: 'POST',
    base,
    key: stack.keys.publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(events),
  });

async function feed(base: string, id: string, opts: { query?: string; headers?: Record<string, string>; key?: string | null } = {}): Promise<SseClient> {
  const auth: Record<string, string> = opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? stack.keys.secretKey}` };
  const c = await SseClient.open(`${base}/recordings/${id}/events?live=true${opts.query ? `&${opts.query}` : ''}`, { ...auth, ...opts.headers });
  open.push(c);
  return c;
}

const eventsMessages = (c: SseClient) => c.messages.filter((m) => m.event === 'events');

/** Incremental events (mouse moves) at `start`, `start + 1`, … */
const moves = (n: number, start: number) =>
  Array.from({ length: n }, (_, i) => ({ type: 3, timestamp: start + i, data: { source: 1, positions: [{ x: i, y: i, id: 1, timeOffset: 0 }] } }));

function presigned(id: string, expires: number): string {
  const signature = sign(stack.keys.signingSecret, { kind: 'recording', recordingId: id }, stack.keys.tenantId, expires);
  return presignQuery({ tenantId: stack.keys.tenantId, expires, keyId: stack.keys.signingKeyId, signature });
}

describe('live event feed', () => {
  it('starts at the latest keyframe, then brings each stored batch once, in order, from either instance', async () => {
    const id = randomUUID();
    const t0 = Date.now() - 60_000;
    expect((await post(a, id, sampleEvents(6, t0))).status).toBe(200);
    expect((await post(a, id, sampleEvents(5, t0 + 10_000))).status).toBe(200); // a second keyframe
    const viewer = await feed(b, id);
    expect(viewer.status).toBe(200);
    expect(viewer.headers['content-type']).toMatch(/^text\/event-stream/);
    await viewer.waitFor((m) => eventsMessages({ messages: m } as SseClient).length === 1);
    const status = viewer.messages.find((m) => m.event === 'status')!;
    expect(JSON.parse(status.data)).toMatchObject({ live: true });
    const backfill = viewer.events;
    expect(backfill.map((e) => e.timestamp)).toEqual([t0 + 10_000, t0 + 10_001, t0 + 10_002, t0 + 10_003, t0 + 10_004]);
    expect(backfill.every((e) => e.originalTimestamp === e.timestamp)).toBe(true);
    const backfillId = Number(viewer.lastId);
    expect(backfillId).toBeGreaterThan(0);

    // Ingested through the other instance, and through this one.
    expect((await post(a, id, moves(3, t0 + 20_000))).status).toBe(200);
    expect((await post(b, id, moves(2, t0 + 30_000))).status).toBe(200);
    await viewer.waitFor((m) => eventsMessages({ messages: m } as SseClient).length === 3);
    const [, first, second] = eventsMessages(viewer);
    expect(Number(first.id)).toBeGreaterThan(backfillId);
    expect(Number(second.id)).toBeGreaterThan(Number(first.id));
    expect(viewer.events.slice(5).map((e) => e.timestamp)).toEqual([t0 + 20_000, t0 + 20_001, t0 + 20_002, t0 + 30_000, t0 + 30_001]);

    // A retried batch (the same Idempotency-Key twice) is stored once and sent once.
    const retried = moves(2, t0 + 40_000);
    const headers = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
    for (let i = 0; i < 2; i++)
      expect(
        (await api(`/recordings/${id}/events`, { method: 'POST', base: a, key: stack.keys.publicKey, headers, body: JSON.stringify(retried) })).status,
      ).toBe(200);
    expect((await post(a, id, moves(1, t0 + 50_000))).status).toBe(200);
    await viewer.waitFor((m) => m.some((x) => x.event === 'events' && x.data.includes(String(t0 + 50_000))));
    expect(viewer.events.slice(10).map((e) => e.timestamp)).toEqual([t0 + 40_000, t0 + 40_001, t0 + 50_000]);
  }, 60_000);

  it('resumes after a reconnect from Last-Event-ID with nothing missing and nothing repeated', async () => {
    const id = randomUUID();
    const t0 = Date.now() - 60_000;
    expect((await post(a, id, sampleEvents(4, t0))).status).toBe(200);
    const first = await feed(a, id);
    expect((await post(a, id, moves(2, t0 + 1000))).status).toBe(200);
    await first.waitFor((m) => eventsMessages({ messages: m } as SseClient).length === 2);
    const had = first.events.map((e) => e.timestamp);
    const lastId = first.lastId!;
    first.close();
    // Missed while away, through both instances.
    expect((await post(b, id, moves(2, t0 + 2000))).status).toBe(200);
    expect((await post(a, id, moves(2, t0 + 3000))).status).toBe(200);
    const again = await feed(b, id, { headers: { 'last-event-id': lastId } });
    await again.waitFor((m) => eventsMessages({ messages: m } as SseClient).length >= 1);
    expect((await post(a, id, moves(1, t0 + 4000))).status).toBe(200);
    await again.waitFor((m) => m.some((x) => x.event === 'events' && x.data.includes(String(t0 + 4000))));
    const all = [...had, ...again.events.map((e) => e.timestamp)];
    const expected = [...sampleEvents(4, t0).map((e) => e.timestamp), t0 + 1000, t0 + 1001, t0 + 2000, t0 + 2001, t0 + 3000, t0 + 3001, t0 + 4000];
    expect(all).toEqual(expected);
    // The lastEventId parameter does the same for clients that cannot set the header.
    const byParam = await feed(a, id, { query: `lastEventId=${lastId}` });
    await byParam.waitFor((m) => eventsMessages({ messages: m } as SseClient).length >= 1);
    expect(byParam.events.map((e) => e.timestamp)).toEqual(expected.slice(had.length));
  }, 60_000);

  it('tells when the recording goes idle and when it is live again', async () => {
    const id = randomUUID();
    expect((await post(a, id, sampleEvents(3))).status).toBe(200);
    const viewer = await feed(a, id);
    await viewer.waitFor((m) => m.some((x) => x.event === 'status' && JSON.parse(x.data).live === false), (IDLE_SECONDS + 5) * 1000);
    expect((await post(b, id, moves(1, Date.now()))).status).toBe(200);
    await viewer.waitFor((m) => {
      const statuses = m.filter((x) => x.event === 'status').map((x) => JSON.parse(x.data).live as boolean);
      return statuses[statuses.length - 1] === true && statuses.includes(false);
    });
  }, 30_000);

  it('opens with a presigned link alone and ends when the link expires; a link of another recording is refused', async () => {
    const id = randomUUID();
    const other = randomUUID();
    expect((await post(a, id, sampleEvents(3))).status).toBe(200);
    expect((await post(a, other, sampleEvents(3))).status).toBe(200);
    const expires = Math.floor(Date.now() / 1000) + 3;
    const viewer = await feed(b, id, { key: null, query: presigned(id, expires) });
    expect(viewer.status).toBe(200);
    await viewer.waitFor((m) => m.some((x) => x.event === 'events'));
    expect(viewer.events.length).toBe(3);
    await viewer.waitFor((m) => m.some((x) => x.event === 'end'), 10_000);
    expect(JSON.parse(viewer.messages[viewer.messages.length - 1].data)).toEqual({ reason: 'link_expired' });
    await viewer.waitClosed();
    expect(Date.now()).toBeGreaterThanOrEqual(expires * 1000);
    const refused = await feed(a, other, { key: null, query: presigned(id, Math.floor(Date.now() / 1000) + 60) });
    expect(refused.status).toBe(403);
  }, 30_000);

  it('ends every feed of a deleted recording, on both instances', async () => {
    const id = randomUUID();
    expect((await post(a, id, sampleEvents(3))).status).toBe(200);
    const viewers = [await feed(a, id), await feed(b, id)];
    for (const v of viewers) await v.waitFor((m) => m.some((x) => x.event === 'events'));
    expect((await stack.api(`/recordings/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    for (const v of viewers) {
      await v.waitFor((m) => m.some((x) => x.event === 'end'));
      expect(JSON.parse(v.messages.find((x) => x.event === 'end')!.data)).toEqual({ reason: 'deleted' });
      await v.waitClosed();
    }
    expect((await feed(a, id)).status).toBe(404);
  }, 30_000);

  it('drops a viewer that does not read, with a reason, while others go on', async () => {
    const id = randomUUID();
    const t0 = Date.now() - 60_000;
    expect((await post(a, id, sampleEvents(3, t0))).status).toBe(200);
    const BATCHES = 200;
    const slow = await feed(a, id);
    const fast = await feed(a, id);
    for (const v of [slow, fast]) await v.waitFor((m) => m.some((x) => x.event === 'events'));
    slow.pause();
    // About 10 MB of batches: more than the socket buffers hold and the 256 KiB the slow viewer may have waiting.
    const filler = 'x'.repeat(50_000);
    for (let i = 0; i < BATCHES; i++) {
      const r = await post(a, id, [{ type: 5, timestamp: t0 + 1000 + i, data: { tag: 'filler', payload: { filler } } }]);
      expect(r.status).toBe(200);
    }
    await fast.waitFor((m) => eventsMessages({ messages: m } as SseClient).length === BATCHES + 1, 60_000);
    slow.resume();
    await slow.waitClosed(30_000);
    const end = slow.messages.find((x) => x.event === 'end');
    expect(end && JSON.parse(end.data)).toEqual({ reason: 'slow_viewer' });
    expect(eventsMessages(slow).length).toBeLessThan(BATCHES + 1);
    expect(fast.closed).toBe(false);
  }, 120_000);

  it('refuses a window, an unknown recording, and more live viewers than the tenant may have', async () => {
    const id = randomUUID();
    expect((await post(a, id, sampleEvents(3))).status).toBe(200);
    const windowed = await feed(a, id, { query: 'from=offset:0' });
    expect(windowed.status).toBe(400);
    expect(JSON.parse(windowed.body).message).toMatch(/from.*live feed/);
    expect((await feed(a, randomUUID())).status).toBe(404);
    // Slots freed by earlier specs are written back within a moment.
    await new Promise((r) => setTimeout(r, 1500));
    const viewers = [];
    for (let i = 0; i < VIEWERS; i++) viewers.push(await feed(i % 2 ? a : b, id));
    expect(viewers.map((v) => v.status)).toEqual(Array(VIEWERS).fill(200));
    const over = await feed(b, id);
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.body).toMatch(/limit liveViewers/);
    viewers[0].close();
    await new Promise((r) => setTimeout(r, 1500));
    expect((await feed(a, id)).status).toBe(200);
  }, 30_000);

  it('tells a recorder on another instance that its recording is watched, and stores its batches through the feed', async () => {
    const id = randomUUID();
    expect((await post(a, id, sampleEvents(3))).status).toBe(200);
    const frames: { type: string; seconds?: number }[] = [];
    const socket = (watch: string) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`${a.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${stack.keys.publicKey}${watch}`);
        ws.on('open', () => resolve(ws));
        ws.on('error', reject);
      });
    const recorder = await socket('&watch=1');
    const official = await socket('');
    const officialFrames: string[] = [];
    recorder.on('message', (d: Buffer) => frames.push(JSON.parse(d.toString()) as { type: string }));
    official.on('message', (d: Buffer) => officialFrames.push(d.toString()));
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(frames).toEqual([]);
      const viewer = await feed(b, id); // on the other instance
      await viewer.waitFor((m) => m.some((x) => x.event === 'events'));
      const deadline = Date.now() + 5000;
      while (!frames.some((f) => f.type === 'watch') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(frames).toContainEqual({ type: 'watch', seconds: 15 });
      recorder.send(JSON.stringify({ type: 'batch', batch: randomUUID(), events: moves(2, Date.now()) }));
      // rrweb's own clients' frames (no watch frame for them) are stored soon too.
      official.send(JSON.stringify(moves(1, Date.now() + 10)[0]));
      await viewer.waitFor((m) => m.filter((x) => x.event === 'events').length >= 3);
      expect(viewer.events.length).toBe(6);
      expect(officialFrames.every((f) => !f.includes('"watch"'))).toBe(true);
    } finally {
      recorder.close();
      official.close();
    }
  }, 30_000);
});
