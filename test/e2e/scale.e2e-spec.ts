// Scale-out: a three-node NATS cluster (stream at 3 replicas), two service instances with
// TAPEDECK_ROLE=all sharing the projectors' durable consumers, one ClickHouse. Our recorder in
// Chromium and WebSocket clients write to instance 1; everything is read from instance 2: events,
// listing, detail and statistics, with exact counts (every event once; eventCount = events read).
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { PageServer } from '../harness/page-server';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import { ServiceProcess } from '../harness/stack';
import { compareMarkers, readEvents, WsIngester } from './faults/ingest-clients';

const slow = process.env.TAPEDECK_SLOW_TESTS ? describe : describe.skip;

const WS_CLIENTS = 6;
const BATCHES_PER_CLIENT = 60;
const EVENTS_PER_BATCH = 10;

function page(serverUrl: string, publicKey: string) {
  return `<!doctype html><html><head><title>scale test</title></head><body>
<input id="name"><button id="go" onclick="document.getElementById('out').textContent += '!'">Go</button><p id="out"></p>
<script>window.__recorded = [];</script>
<script src="${serverUrl}/sdk/recorder.js"></script>
<script>Tapedeck.start({ publicKey: ${JSON.stringify(publicKey)}, serverUrl: ${JSON.stringify(serverUrl)}, meta: { suite: 'scale' },
  recordOptions: { emit: function (e) { window.__recorded.push(JSON.parse(JSON.stringify(e))); } } });</script>
</body></html>`;
}

type Ev = { type: number; timestamp: number; data: unknown; sequenceId?: number; originalTimestamp?: number };
const strip = ({ sequenceId: _s, originalTimestamp: _o, ...rest }: Ev) => JSON.stringify(rest);

interface ProjectionStats {
  batches: number;
  messages: number;
}

slow('scale-out: NATS cluster, two service instances sharing the projectors, one ClickHouse', () => {
  let stack: PrivateStack;
  let one: ServiceProcess;
  let two: ServiceProcess;
  let pages: PageServer;
  let browser: Browser;
  const clients: WsIngester[] = [];

  beforeAll(async () => {
    stack = await PrivateStack.start({ cluster: true, env: { TAPEDECK_ROLE: 'all', PROJECTOR_BATCH: '50' } });
    // Both at once on the fresh cluster: they race to create the stream, the R3 tenants bucket and the
    // bootstrap tenant, and start-up must ride that out (boot.service.ts retries NATS steps).
    [one, two] = await Promise.all([stack.startService('one'), stack.startService('two')]);
    pages = await PageServer.start({ '/': () => page(one.url, stack.keys.publicKey) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await browser?.close();
    await pages?.close();
    await stack?.close();
  });

  const projectionStats = async (s: ServiceProcess) => {
    const r = await stack.api('/readyz', { base: s.url });
    return r.json<{ details: { projections: Record<string, ProjectionStats> } }>().details.projections;
  };

  it('writes to instance 1 are read from instance 2 exactly once, with exact counts in the listing and statistics', async () => {
    const t0 = Date.now();
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${pages.url}/`);

    for (let i = 0; i < WS_CLIENTS; i++)
      clients.push(new WsIngester(() => one.url, stack.keys.publicKey, randomUUID(), `c${i}`, EVENTS_PER_BATCH, 20, 8).start());
    for (let i = 0; i < 5; i++) {
      await p.click('#go');
      await p.type('#name', `scale${i}`);
    }
    await pollUntil(
      async () => clients.map((c) => c.acked.size),
      (n) => n.every((x) => x >= BATCHES_PER_CLIENT),
      120_000,
      100,
    );
    await Promise.all(clients.map((c) => c.stop()));
    await p.evaluate(() => (window as any).Tapedeck.flush());
    const recStats = await p.evaluate(() => (window as any).Tapedeck.stats());
    expect(recStats).toMatchObject({ pending: 0, dropped: 0, lost: 0 });
    const browserRecording: string = await p.evaluate(() => (window as any).Tapedeck.getRecordingId());
    await p.evaluate(() => (window as any).Tapedeck.stop());
    const recorded: Ev[] = await p.evaluate(() => (window as any).__recorded);
    await ctx.close();
    const ingestMs = Date.now() - t0;

    // Events, from instance 2.
    const counts = new Map<string, number>();
    for (const c of clients) {
      const stored = await readEvents(two.url, stack.keys.secretKey, c.recordingId);
      expect(compareMarkers(c.ackedMarkers, stored)).toEqual({ missing: [], duplicated: [], unexpected: [] });
      counts.set(c.recordingId, stored.length);
    }
    const r = await stack.api(`/recordings/${browserRecording}/events`, { base: two.url });
    const stored = r.json<Ev[]>();
    const expected = recorded.filter((e) => !(e.type === 5 && (e.data as { tag?: string }).tag === 'recording-meta'));
    expect(stored.map(strip)).toEqual([...expected].sort((a, b) => a.timestamp - b.timestamp).map(strip));
    counts.set(browserRecording, stored.length);
    expect(errors).toEqual([]);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);

    // Listing, detail and statistics, from instance 2, once both projectors caught up.
    const caughtUpFrom = Date.now();
    const listed = await pollUntil(
      () =>
        stack
          .api('/recordings?limit=100', { base: two.url })
          .then((x) => x.json<{ recordings: { recordingId: string; eventCount: number; metadata: Record<string, string> }[] }>()),
      (l) => l.recordings.length === counts.size && l.recordings.every((x) => x.eventCount === counts.get(x.recordingId)),
      120_000,
      250,
    );
    const catchUpMs = Date.now() - caughtUpFrom;
    expect(Object.fromEntries(listed.recordings.map((x) => [x.recordingId, x.eventCount]))).toEqual(Object.fromEntries(counts));
    expect(listed.recordings.find((x) => x.recordingId === browserRecording)!.metadata).toMatchObject({ suite: 'scale' });
    for (const id of [browserRecording, clients[0].recordingId]) {
      const d = await stack.api(`/recordings/${id}`, { base: two.url });
      expect(d.json()).toMatchObject({ recordingId: id, projected: true, eventCount: counts.get(id) });
    }
    const st = await stack.api(`/statistics?from=${t0 - 3_600_000}&to=${Date.now() + 3_600_000}`, { base: two.url });
    expect(st.status).toBe(200);
    expect(st.json().totals).toMatchObject({ recordings: counts.size, events: total });

    // How the projector work was split between the instances (per-process counters in /readyz).
    const [s1, s2] = await Promise.all([projectionStats(one), projectionStats(two)]);
    const split = Object.keys(s1).map(
      (name) => `${name}: instance 1 ${s1[name].messages} messages in ${s1[name].batches} batches, instance 2 ${s2[name].messages} in ${s2[name].batches}`,
    );
    const { jsm } = await stack.cluster!.client();
    const streamMessages = (await jsm.streams.info('TAPEDECK_EVENTS')).state.messages;
    // Redeliveries: messages a worker received and did not ack (or never received) come back after ack_wait.
    const redelivered = (await jsm.consumers.info('TAPEDECK_EVENTS', 'projector-recordings')).num_redelivered;
    // Both instances pulled from the shared durable consumer.
    expect(s1.recordings.messages).toBeGreaterThan(0);
    expect(s2.recordings.messages).toBeGreaterThan(0);
    console.log(
      `scale: ${counts.size} recordings, ${total} events, ${streamMessages} stream messages ingested via instance 1 in ${ingestMs} ms; ` +
        `listing on instance 2 exact ${catchUpMs} ms after the last ack; projector split — ${split.join('; ')}; redelivered ${redelivered}`,
    );
  });
});
