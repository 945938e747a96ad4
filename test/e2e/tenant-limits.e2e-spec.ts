// Per-tenant rate limits hold across two instances on one NATS (docs/limits.md, "Per-tenant limits"):
// ingestion events and bytes per second (HTTP 429 with Retry-After and a message naming the limit;
// WebSocket error frames), concurrent WebSockets, read bandwidth, renders at once. Every acknowledged event reads back.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, IncomingMessage, request } from 'node:http';
import { api, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import type { PrivateStack } from '../harness/private-stack';
import { expectRefusal, LimitedTenant, limitedTenant, OpenedSocket, openSocket, paddedEvents, post, twoInstances } from './limits-fixtures';

let stack: PrivateStack;
let s1: string;
let s2: string;

beforeAll(async () => {
  stack = await twoInstances();
  [s1, s2] = stack.services.map((s) => s.url);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const readCount = async (base: string, key: string, rec: string) => {
  const r = await api(`/recordings/${rec}/events`, { base, key });
  return r.status === 200 ? (r.json() as unknown[]).length : -r.status;
};

/** Sends batches to both instances in turn for `ms`, at most `inFlight` at once; counts what was acknowledged. */
async function flood(key: string, rec: string, ms: number, batch: () => unknown[], inFlight = 4) {
  const end = Date.now() + ms;
  const out = { acked: 0, ackedEvents: 0, refusals: [] as Awaited<ReturnType<typeof post>>[] };
  let i = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < end) {
        const events = batch();
        const r = await post(i++ % 2 ? s2 : s1, key, rec, events);
        if (r.status === 200) {
          out.acked++;
          out.ackedEvents += events.length;
        } else out.refusals.push(r);
      }
    }),
  );
  return out;
}

describe('per-tenant ingestion rates, across two instances', () => {
  it('holds events per second for the tenant as a whole, refuses the rest with 429, and keeps every acknowledged event', async () => {
    const t = await limitedTenant(stack, { ingestEventsPerSecond: 100 });
    const rec = randomUUID();
    const started = Date.now();
    const r = await flood(t.publicKey, rec, 3000, () => paddedEvents(10, 100));
    const seconds = (Date.now() - started) / 1000;
    // The burst (1 s = 100 events) plus the rate over the run; two instances with a bucket each
    // would take twice that. Slack: one lease (a tenth of a second) per instance.
    expect(r.ackedEvents).toBeLessThanOrEqual(100 + 100 * seconds + 2 * 10 + 10);
    expect(r.ackedEvents).toBeGreaterThanOrEqual(100 + 100 * 2.5);
    expect(r.refusals.length).toBeGreaterThan(0);
    for (const refusal of r.refusals.slice(0, 5)) expectRefusal(refusal, 429, 'ingestEventsPerSecond');
    expect(r.refusals[0].text).toBe('Ingestion rate limit reached: this tenant may use 100 events per second (limit ingestEventsPerSecond); retry later');
    expect(await readCount(s2, t.secretKey, rec)).toBe(r.ackedEvents);
  });

  it('holds bytes per second the same way', async () => {
    const t = await limitedTenant(stack, { ingestBytesPerSecond: 20_000 });
    const rec = randomUUID();
    const started = Date.now();
    let bytes = 0;
    const r = await flood(t.publicKey, rec, 2000, () => paddedEvents(5, 1000));
    const seconds = (Date.now() - started) / 1000;
    bytes = r.acked * JSON.stringify(paddedEvents(5, 1000)).length;
    expect(bytes).toBeLessThanOrEqual(20_000 * (1 + seconds) + 2 * 2000 + 5000 + 5000);
    expect(r.refusals.length).toBeGreaterThan(0);
    expectRefusal(r.refusals[0], 429, 'ingestBytesPerSecond');
    expect(await readCount(s1, t.secretKey, rec)).toBe(r.ackedEvents);
  });

  it("paces a tenant's requests sent at once to its rate (each waits its turn instead of all going at once), and holds no other tenant", async () => {
    const t = await limitedTenant(stack, { ingestBytesPerSecond: 20_000 });
    const other = await limitedTenant(stack, { ingestBytesPerSecond: 10_000_000 });
    const events = paddedEvents(6, 1000);
    // Each batch costs a quarter of a second of the rate; the three fit the bucket (1 s), so none is refused.
    const cost = JSON.stringify(events).length / 20_000;
    expect(cost).toBeGreaterThan(0.2);
    const sent = Date.now();
    const answered = async (r: ReturnType<typeof post>) => ({ status: (await r).status, after: Date.now() - sent });
    const batches = [0, 1, 2].map(() => answered(post(s1, t.publicKey, randomUUID(), events)));
    await new Promise((r) => setTimeout(r, 100));
    const others = await answered(post(s1, other.publicKey, randomUUID(), events));
    const paced = (await Promise.all(batches)).sort((a, b) => a.after - b.after);
    expect(paced.map((p) => p.status)).toEqual([200, 200, 200]);
    // The first goes at once, the k-th waits for the k-1 before it less 50 ms of tolerance (pacer.ts);
    // unpaced, all three come back together.
    expect(paced[2].after - paced[0].after).toBeGreaterThanOrEqual(2 * cost * 1000 - 100);
    expect(paced[2].after).toBeGreaterThanOrEqual((2 * cost - 0.05) * 1000 - 50);
    // The other tenant's batch, sent while these waited, went on at once.
    expect(others.status).toBe(200);
    expect(others.after).toBeLessThan(paced[1].after);
  });

  it('answers a tenant this instance knows to be over its rate before reading the body, and reads no more of its refused bodies than its byte rate', async () => {
    const t = await limitedTenant(stack, { ingestEventsPerSecond: 1, ingestBytesPerSecond: 1_000_000 });
    const rec = randomUUID();
    expect((await post(s1, t.publicKey, rec, paddedEvents(5, 100))).status).toBe(200);
    expectRefusal(await post(s1, t.publicKey, rec, paddedEvents(5, 100)), 429, 'ingestEventsPerSecond');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(s1);
    const postEvents = (headers: Record<string, number>, onResponse: (res: IncomingMessage) => void) =>
      request(
        {
          host: url.hostname,
          port: url.port,
          path: `/recordings/${rec}/events`,
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${t.publicKey}`, 'content-type': 'application/json', ...headers },
        },
        onResponse,
      );
    /** Announces `announced` bytes, sends 1 KB and waits for the answer; then sends the rest unless the connection closes first. */
    const upload = (announced: number) =>
      new Promise<{ status: number; connection?: string; retryAfter?: string; text: string; answeredEarly: boolean; closedAfterMs?: number }>(
        (resolve, reject) => {
          const req = postEvents({ 'content-length': announced }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => {
              const answered = {
                status: res.statusCode!,
                connection: res.headers.connection,
                retryAfter: res.headers['retry-after'] as string | undefined,
                text,
              };
              const answeredEarly = !req.writableFinished;
              const answeredAt = Date.now();
              if (res.headers.connection === 'close') {
                const closed = () => resolve({ ...answered, answeredEarly, closedAfterMs: Date.now() - answeredAt });
                return req.socket?.destroyed ? closed() : req.socket?.once('close', closed);
              }
              // The rest of the body, so the connection can carry the next request.
              req.end(Buffer.alloc(announced - 1024, 0x20), () => resolve({ ...answered, answeredEarly }));
            });
          });
          req.on('error', () => undefined); // an upload cut short by the close
          req.write('[' + ' '.repeat(1023), (e) => e && reject(e));
        },
      );
    const get = () =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          { host: url.hostname, port: url.port, path: `/recordings/${rec}/events`, agent, headers: { authorization: `Bearer ${t.secretKey}` } },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, text }));
          },
        );
        req.on('error', reject);
        req.end();
      });

    // 8 MB announced, the tenant's allowance of refused bytes full: the answer comes without the rest
    // (read first, it never would); the service reads and drops the rest, and the connection carries
    // the next request.
    const drained = await upload(8_000_000);
    expect(drained).toMatchObject({ status: 429, connection: 'keep-alive', answeredEarly: true });
    expect(drained.text).toMatch(/limit ingestEventsPerSecond/);
    expect(Number(drained.retryAfter)).toBeGreaterThan(0);
    expect((await get()).status).toBe(200);
    // At once again (the allowance, 1 MB/s, now 6 MB in debt): answered the same, the rest left unread,
    // the connection closed a second later.
    const cut = await upload(8_000_000);
    expect(cut).toMatchObject({ status: 429, connection: 'close', answeredEarly: true });
    expect(cut.text).toMatch(/limit ingestEventsPerSecond/);
    expect(cut.closedAfterMs).toBeLessThan(5000);
    // A client that sends its whole body at once (as fetch and most clients do) gets the same, and
    // the service reads no more of it than a chunk or two: Node drains a request's body after the
    // answer unless it was read from, and the service's async onRequest hook leaves the first chunks
    // buffered before the refusal (read(0) on that full buffer read nothing: the whole body was read).
    const readBefore = bytesReadBy(stack.services[0].child.pid!);
    const whole = await new Promise<{ status: number; connection?: string }>((resolve) => {
      const req = postEvents({ 'content-length': 8_000_000 }, (res) => {
        res.resume();
        res.on('end', () => req.socket?.once('close', () => resolve({ status: res.statusCode!, connection: res.headers.connection })));
      });
      req.on('error', () => undefined); // the upload cut short by the close
      req.end(Buffer.alloc(8_000_000, 0x20));
    });
    expect(whole).toEqual({ status: 429, connection: 'close' });
    expect(bytesReadBy(stack.services[0].child.pid!) - readBefore).toBeLessThan(2_000_000);
    // A client asking to go ahead first (Expect: 100-continue) gets the 429 in its place and sends nothing.
    const expecting = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const req = postEvents({ 'content-length': 8_000_000 }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, continued }));
      });
      req.setHeader('expect', '100-continue');
      req.on('continue', () => ((continued = true), req.end(Buffer.alloc(8_000_000, 0x20))));
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(expecting).toEqual({ status: 429, continued: false });
    // A small body is read and dropped whatever the allowance: its connection stays open.
    const small = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = postEvents({}, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(paddedEvents(5, 100)));
    });
    expect(small).toEqual({ status: 429, connection: 'keep-alive' });
    // Nothing of the refused batches was stored.
    const next = await get();
    expect(next.status).toBe(200);
    expect(JSON.parse(next.text)).toHaveLength(5);
    agent.destroy();
  });

  it("applies a change of the tenant's limits at once, without a restart", async () => {
    const t = await limitedTenant(stack, { ingestEventsPerSecond: 1 });
    const rec = randomUUID();
    expect((await post(s1, t.publicKey, rec, paddedEvents(5, 100))).status).toBe(200);
    expectRefusal(await post(s2, t.publicKey, rec, paddedEvents(5, 100)), 429, 'ingestEventsPerSecond');
    const raised = await api(`/admin/tenants/${t.tenantId}/limits`, {
      method: 'PATCH',
      base: s1,
      key: stack.adminToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ingestEventsPerSecond: 0 }),
    });
    expect(raised.status).toBe(200);
    await pollUntil(
      () => post(s2, t.publicKey, rec, paddedEvents(5, 100)),
      (res) => res.status === 200,
      3000,
      50,
    );
  });
});

describe('WebSockets', () => {
  const sockets: OpenedSocket[] = [];
  afterAll(() => sockets.forEach((s) => s.ws.terminate()));

  const open = async (base: string, key: string) => {
    const s = await openSocket(base, key, randomUUID());
    if ('ws' in s) sockets.push(s);
    return s;
  };

  it('counts open sockets per tenant across instances, refuses the upgrade over it with 429, and frees a slot on close', async () => {
    const t = await limitedTenant(stack, { webSockets: 2 });
    const a = await open(s1, t.publicKey);
    const b = await open(s2, t.publicKey);
    expect('ws' in a && 'ws' in b).toBe(true);
    for (const base of [s1, s2]) {
      const refused = await open(base, t.publicKey);
      expect(refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
      expect((refused as { body: string }).body).toBe(
        'Too many WebSockets: this tenant may keep 2 open WebSockets (limit webSockets); close one or send over HTTP',
      );
    }
    // Another tenant is not affected.
    const other = await limitedTenant(stack, { webSockets: 2 });
    expect('ws' in (await open(s1, other.publicKey))).toBe(true);
    (a as OpenedSocket).ws.close();
    await pollUntil(
      () => open(s2, t.publicKey),
      (s) => 'ws' in s,
      5000,
      100,
    );
  });

  it('answers a batch frame over the rate with an error frame (429, the batch, the limit, retryAfter), keeps the socket, and takes the batch again later', async () => {
    const t = await limitedTenant(stack, { ingestEventsPerSecond: 20 });
    const s = (await open(s1, t.publicKey)) as OpenedSocket;
    const frame = (batch: string) => JSON.stringify({ type: 'batch', batch, events: paddedEvents(15, 100) });
    s.ws.send(frame('b1'));
    s.ws.send(frame('b2'));
    const error = await pollUntil(
      async () => s.frames.find((f) => f.type === 'error'),
      (f) => f !== undefined,
      5000,
      20,
    );
    expect(error).toMatchObject({ type: 'error', status: 429, batch: 'b2', retryAfter: expect.any(Number) });
    expect(String(error!.message)).toContain('(limit ingestEventsPerSecond)');
    expect(s.frames).toContainEqual(expect.objectContaining({ type: 'ack', batch: 'b1' }));
    await new Promise((r) => setTimeout(r, Number(error!.retryAfter) * 1000));
    s.ws.send(frame('b2'));
    await pollUntil(
      async () => s.frames.find((f) => f.type === 'ack' && f.batch === 'b2'),
      (f) => f !== undefined,
      5000,
      20,
    );
    expect(s.ws.readyState).toBe(s.ws.OPEN);
  });
});

describe('read bandwidth', () => {
  /** A recording of about 300 KB of events JSON. */
  async function bigRecording(t: { publicKey: string; secretKey: string }) {
    const rec = randomUUID();
    expect((await post(s1, t.publicKey, rec, paddedEvents(300, 1000))).status).toBe(200);
    return rec;
  }

  const timedRead = async (base: string, key: string, rec: string) => {
    const started = Date.now();
    const r = await api(`/recordings/${rec}/events`, { base, key });
    return { status: r.status, bytes: r.text.length, ms: Date.now() - started, res: r };
  };

  it("slows a read to the tenant's bandwidth, to its last byte", async () => {
    const t = await limitedTenant(stack, { readBytesPerSecond: 100_000 });
    const rec = await bigRecording(t);
    const r = await timedRead(s2, t.secretKey, rec);
    expect(r.status).toBe(200);
    expect(r.bytes).toBeGreaterThan(300_000);
    // A burst of 100 KB, then 100 KB/s.
    expect(r.ms).toBeGreaterThanOrEqual(1800);
    expect((r.res.json() as unknown[]).length).toBe(300);
  }, 30_000);

  it('slows a windowed read the same way', async () => {
    const t = await limitedTenant(stack, { readBytesPerSecond: 100_000 });
    const rec = await bigRecording(t);
    const started = Date.now();
    const r = await api(`/recordings/${rec}/events?from=offset:0&limit=250`, { base: s1, key: t.secretKey });
    expect(r.status).toBe(200);
    expect((r.json() as unknown[]).length).toBe(250);
    // About 250 KB: a burst of 100 KB, then 100 KB/s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
  }, 30_000);

  it('refuses a new read with 429 on either instance while the tenant uses its bandwidth, and serves it again after', async () => {
    const t = await limitedTenant(stack, { readBytesPerSecond: 100_000 });
    const rec = await bigRecording(t);
    const slow = timedRead(s1, t.secretKey, rec);
    await new Promise((r) => setTimeout(r, 500));
    // On the other instance too: a bucket per instance would serve it at once.
    for (const base of [s2, s1]) {
      const refused = await timedRead(base, t.secretKey, rec);
      expectRefusal(refused.res, 429, 'readBytesPerSecond');
      expect(refused.res.text).toBe('Read bandwidth limit reached: this tenant may use 100000 bytes per second (limit readBytesPerSecond); retry later');
    }
    expect((await slow).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await timedRead(s2, t.secretKey, rec)).status).toBe(200);
  }, 30_000);
});

describe('renders', () => {
  it("counts a tenant's renders in progress across instances, refuses more with 429 naming the limit, leaves other tenants alone, and frees them when done", async () => {
    const [t, other] = await Promise.all([limitedTenant(stack, { renders: 2 }), limitedTenant(stack, { renders: 0 })]);
    const rec = randomUUID();
    const start = Date.now() - 60_000;
    const events = sampleEvents(40, start);
    for (const who of [t, other]) expect((await post(s1, who.publicKey, rec, events)).status).toBe(200);
    // Distinct moments and sizes, so that no image cache or shared render answers for another.
    let n = 0;
    const shot = (who: typeof t, base: string) =>
      api(`/recordings/${rec}/screenshot.png?time=epoch:${start + 2 + (n % 30)}&width=${300 + n++}&height=200`, { base, key: who.secretKey });
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => shot(t, i % 2 ? s2 : s1)));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4); // two at once, and a render may end while the burst arrives
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    const refused = burst.find((r) => r.status === 429)!;
    expectRefusal(refused, 429, 'renders');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.text).toBe('Too many renders at once: this tenant may have 2 renders in progress or waiting (limit renders); retry shortly');
    // Another tenant's burst is not refused: its renders are unlimited.
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => shot(other, i % 2 ? s2 : s1)));
    expect(others.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Done renders free their slots (written back within a fraction of a second): one at a time always passes.
    await pollUntil(
      () => shot(t, s2),
      (r) => r.status === 200,
    );
    for (let i = 0; i < 3; i++) expect((await shot(t, i % 2 ? s1 : s2)).status).toBe(200);
  });

  it("spaces a tenant's renders asked at once to its render rate, holds that rate across instances with 429 naming it, and leaves other tenants alone", async () => {
    const [t, u, other] = await Promise.all([
      limitedTenant(stack, { rendersPerSecond: 2 }),
      limitedTenant(stack, { rendersPerSecond: 1 }),
      limitedTenant(stack, { renders: 0 }),
    ]);
    const rec = randomUUID();
    const start = Date.now() - 60_000;
    for (const who of [t, u, other]) expect((await post(s1, who.publicKey, rec, sampleEvents(40, start))).status).toBe(200);
    let n = 0;
    const shot = (who: LimitedTenant, base: string) =>
      api(`/recordings/${rec}/screenshot.png?time=epoch:${start + 2 + (n % 30)}&width=${300 + n++}&height=200`, { base, key: who.secretKey });
    expect((await shot(other, s1)).status).toBe(200); // the browser launched
    // Three at once on one instance, half a second of the rate each: the first goes, the second waits
    // for it (less 0.2 s that may go at once: pacer.ts), the third for both; none is refused (burst 1 s,
    // and the bucket refills meanwhile). Unpaced, the third would find the bucket empty.
    const sent = Date.now();
    const paced = await Promise.all([0, 1, 2].map(async () => ({ status: (await shot(t, s1)).status, after: Date.now() - sent })));
    expect(paced.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(Math.max(...paced.map((p) => p.after))).toBeGreaterThanOrEqual(800 - 50);
    // One render a second, all instances together: of two asked at once of the two instances, one
    // finds the shared bucket empty (a bucket per instance would serve both). Each instance has read
    // the recording once before, a second apart, so that neither reaches the bucket late.
    const second = () => new Promise((r) => setTimeout(r, 1100));
    for (const base of [s1, s2]) {
      expect((await shot(u, base)).status).toBe(200);
      await second();
    }
    const pair = await Promise.all([shot(u, s1), shot(u, s2)]);
    expect(pair.map((r) => r.status).sort()).toEqual([200, 429]);
    const refused = pair.find((r) => r.status === 429)!;
    expectRefusal(refused, 429, 'rendersPerSecond');
    expect(refused.text).toBe('Render rate limit reached: this tenant may use 1 renders per second (limit rendersPerSecond); retry later');
    // Another tenant's renders at the same moment are neither held nor refused.
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => shot(other, i % 2 ? s2 : s1)));
    expect(others.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000));
    expect((await shot(u, s2)).status).toBe(200);
  });
});

/** Bytes a process has read with read(2) and the like so far, sockets included (Linux /proc/<pid>/io). */
function bytesReadBy(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}
