// ClickHouse away for 20 s during ingestion — first frozen (SIGSTOP: connections hang), then killed
// and restarted on the same ports and data directory — as the API sees it: ingestion and event reads
// keep working, /readyz stays 200 with status "degraded", listings go stale (or answer 503, never
// 500), and once ClickHouse is back every recording is listed with the right eventCount.
// (test/e2e/projections-resilience.e2e-spec.ts covers the projector side of a short freeze.)
import { randomUUID } from 'node:crypto';
import { testClickHouseEngine } from '../../harness/clickhouse';
import { pollUntil } from '../../harness/poll-until';
import { PrivateStack } from '../../harness/private-stack';
import { compareMarkers, HttpIngester, MarkedEvent, readEvents, WsIngester } from './ingest-clients';

const slow = process.env.TAPEDECK_SLOW_TESTS ? describe : describe.skip;

const OUTAGE_MS = 20_000;
const FROZEN_MS = 8_000;

interface Listed {
  recordingId: string;
  eventCount: number;
}

slow('ClickHouse outage during ingestion (frozen, then killed and restarted on the same ports and data dir)', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await PrivateStack.start();
    await stack.startService('service');
  });
  afterAll(() => stack?.close());

  const listing = async () => {
    const r = await stack.api('/recordings?limit=100');
    return { status: r.status, recordings: r.status === 200 ? r.json<{ recordings: Listed[] }>().recordings : [] };
  };

  /** /readyz answers within 5 s (a probe's patience) with 200 "degraded" while ClickHouse is away. */
  async function expectDegraded(phase: string) {
    const started = Date.now();
    const r = await stack.api('/readyz', { signal: AbortSignal.timeout(5000) }).catch((e) => ({ status: -1, text: String(e), json: () => ({}) }));
    const took = Date.now() - started;
    expect({ phase, status: r.status, body: r.status === 200 ? r.json().status : r.text }).toEqual({ phase, status: 200, body: 'degraded' });
    return took;
  }

  /** Every event acknowledged before the read started is returned, none twice, nothing unknown. */
  async function expectReadable(c: HttpIngester | WsIngester) {
    const acked = [...c.ackedMarkers];
    const stored = await readEvents(stack.url, stack.keys.secretKey, c.recordingId);
    const cmp = compareMarkers(acked, stored);
    expect({ missing: cmp.missing, duplicated: cmp.duplicated }).toEqual({ missing: [], duplicated: [] });
    // A read may see a batch whose ack is still on its way, but only one the client sent.
    expect(cmp.unexpected.filter((m) => !m.startsWith(`${c.prefix}:`) || Number(m.split(':')[1]) >= c.produced)).toEqual([]);
  }

  const clients: (HttpIngester | WsIngester)[] = [];
  afterEach(() => clients.forEach((c) => c.close()));

  it('ingestion and event reads keep working, /readyz stays 200 "degraded", listings go stale, then catch up', async () => {
    const key = stack.keys.publicKey;
    const before = new HttpIngester(() => stack.url, key, randomUUID(), 'before', 5, 0).start();
    clients.push(before);
    await pollUntil(
      async () => before.acked.size,
      (n) => n >= 10,
      30_000,
    );
    await before.stop();
    await pollUntil(listing, (l) => l.recordings.some((r) => r.recordingId === before.recordingId && r.eventCount === before.ackedMarkers.length), 30_000);

    const http = new HttpIngester(() => stack.url, key, randomUUID(), 'http', 5, 50);
    const ws = new WsIngester(() => stack.url, key, randomUUID(), 'ws', 5, 100, 4);
    clients.push(http, ws);
    const t0 = Date.now();
    stack.signalClickHouse('SIGSTOP');
    const readyzMs: number[] = [];
    let listedWhileDown: { status: number; recordings: Listed[] } | undefined;
    let detailWhileDown: { status: number; body: Record<string, unknown> } | undefined;
    try {
      http.start();
      ws.start();
      // Frozen: connections to ClickHouse hang. Ingestion, event reads and readiness must not.
      while (Date.now() - t0 < FROZEN_MS) {
        readyzMs.push(await expectDegraded('frozen'));
        await expectReadable(http);
        await expectReadable(ws);
        await pollUntil(
          async () => http.acked.size + ws.acked.size,
          (n) => n > 0,
          10_000,
        );
      }
      await stack.killClickHouse();
      // Down: connections are refused.
      while (Date.now() - t0 < OUTAGE_MS) {
        readyzMs.push(await expectDegraded('down'));
        await expectReadable(http);
        await expectReadable(ws);
        listedWhileDown = await listing();
        expect([200, 503]).toContain(listedWhileDown.status);
        const d = await stack.api(`/recordings/${http.recordingId}`);
        detailWhileDown = { status: d.status, body: d.status === 200 ? d.json() : { text: d.text } };
        // JetStream still knows the recording: 200 with projected: false (not 404, not 500).
        expect(detailWhileDown).toMatchObject({ status: 200, body: { recordingId: http.recordingId, projected: false } });
      }
    } finally {
      if (stack.clickhouse?.child.exitCode === null && stack.clickhouse.child.signalCode === null) stack.signalClickHouse('SIGCONT');
      else await stack.restartClickHouse();
    }
    const restartedAt = Date.now();
    await Promise.all([http.stop(), ws.stop()]);
    const during = { http: http.acked.size, ws: ws.acked.size };
    expect(http.unexpected).toEqual([]);
    expect(ws.unexpected).toEqual([]);
    // ClickHouse is not on the write path: no batch was refused.
    expect(http.failureCount + ws.failureCount).toBe(0);
    // Stale: the listing did not show recordings that ClickHouse never saw (or answered 503).
    const staleIds = listedWhileDown!.recordings.map((r) => r.recordingId);
    expect(staleIds).not.toContain(http.recordingId);
    expect(staleIds).not.toContain(ws.recordingId);

    const all = [before, http, ws];
    const stored = new Map<string, MarkedEvent[]>();
    for (const c of all) {
      const events = await readEvents(stack.url, stack.keys.secretKey, c.recordingId);
      expect(compareMarkers(c.ackedMarkers, events)).toEqual({ missing: [], duplicated: [], unexpected: [] });
      stored.set(c.recordingId, events);
    }
    const caughtUp = await pollUntil(
      listing,
      (l) => all.every((c) => l.recordings.some((r) => r.recordingId === c.recordingId && r.eventCount === stored.get(c.recordingId)!.length)),
      90_000,
      250,
    );
    const catchUpMs = Date.now() - restartedAt;
    expect(caughtUp.recordings).toHaveLength(3);
    const detail = await stack.api(`/recordings/${ws.recordingId}`);
    expect(detail.json()).toMatchObject({ projected: true, eventCount: stored.get(ws.recordingId)!.length });
    const stats = await stack.api(`/statistics?from=${t0 - 3_600_000}&to=${Date.now() + 3_600_000}`);
    expect(stats.status).toBe(200);
    expect(stats.json().totals).toMatchObject({ recordings: 3, events: [...stored.values()].reduce((n, e) => n + e.length, 0) });
    await pollUntil(
      () => stack.api('/readyz'),
      (r) => r.status === 200 && r.json().status === 'ready',
      30_000,
    );
    console.log(
      `ClickHouse away ${restartedAt - t0} ms (frozen ${FROZEN_MS} ms, then down); acked during it: ${during.http} HTTP + ${during.ws} WS batches; ` +
        `/readyz took max ${Math.max(...readyzMs)} ms; listing while down: ${listedWhileDown!.status}; listing caught up ${catchUpMs} ms after the restart`,
    );
  });

  // chDB's stand-in server takes any password, so only clickhouse-server can refuse one.
  (testClickHouseEngine() === 'server' ? it : it.skip)('an instance with a wrong ClickHouse password is "degraded" and says why, and ingests', async () => {
    // /ping answers without checking credentials: /readyz used to call ClickHouse ok, and the instance
    // (never migrated, ClickHouse "reachable") stayed 503 not ready, ingestion included.
    const wrong = await stack.startService('wrong-password', { CLICKHOUSE_PASSWORD: 'not-the-password', TAPEDECK_ROLE: 'api' });
    try {
      const r = await stack.api('/readyz', { base: wrong.url });
      expect({ status: r.status, body: r.json() }).toMatchObject({
        status: 200,
        body: { status: 'degraded', checks: { clickhouse: { ok: false, detail: 'credentials refused (CLICKHOUSE_USER / CLICKHOUSE_PASSWORD)' } } },
      });
      const c = new HttpIngester(() => wrong.url, stack.keys.publicKey, randomUUID(), 'wrong', 3, 0).start();
      clients.push(c);
      await pollUntil(
        async () => c.acked.size,
        (n) => n >= 3,
        30_000,
      );
      await c.stop();
      expect(c.failureCount).toBe(0);
      await expectReadable(c);
    } finally {
      await wrong.stop();
    }
  });

  it('an instance started while ClickHouse is down becomes ready ("degraded"), ingests, and projects once it is back', async () => {
    await stack.killClickHouse();
    let late: Awaited<ReturnType<PrivateStack['startService']>> | undefined;
    try {
      // startService waits for /readyz 200: before, an instance that had never migrated stayed 503.
      late = await stack.startService('late');
      const r = await stack.api('/readyz', { base: late.url });
      expect({ status: r.status, body: r.json() }).toMatchObject({
        status: 200,
        body: { status: 'degraded', checks: { clickhouse: { ok: false }, migrations: { ok: false } } },
      });
      const c = new HttpIngester(() => late!.url, stack.keys.publicKey, randomUUID(), 'late', 5, 0).start();
      clients.push(c);
      await pollUntil(
        async () => c.acked.size,
        (n) => n >= 5,
        30_000,
      );
      await c.stop();
      expect(c.failureCount).toBe(0);
      await expectReadable(c);
      await stack.restartClickHouse();
      const events = c.ackedMarkers.length;
      await pollUntil(
        async () => (await stack.api('/recordings?limit=100', { base: late!.url })).json<{ recordings: Listed[] }>()?.recordings ?? [],
        (l) => l.some((x) => x.recordingId === c.recordingId && x.eventCount === events),
        90_000,
        250,
      );
      await pollUntil(
        () => stack.api('/readyz', { base: late!.url }),
        (x) => x.status === 200 && x.json().status === 'ready',
        30_000,
      );
    } finally {
      if (stack.clickhouse?.child.exitCode !== null || stack.clickhouse?.child.signalCode !== null) await stack.restartClickHouse().catch(() => undefined);
    }
  });
});
