// The service instance a browser records to is killed (SIGKILL) in the middle of a WebSocket session;
// a TCP proxy (the load balancer) then sends new connections to a second instance. Our recorder
// reconnects and resends what was not acknowledged: every event the page recorded is read back once.
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../harness/browser';
import { PageServer } from '../../harness/page-server';
import { pollUntil } from '../../harness/poll-until';
import { PrivateStack } from '../../harness/private-stack';
import { ServiceProcess } from '../../harness/stack';
import { TcpProxy } from '../../harness/tcp-proxy';

const slow = process.env.TAPEDECK_SLOW_TESTS ? describe : describe.skip;

function page(serverUrl: string, publicKey: string) {
  return `<!doctype html><html><head><title>crash test</title></head><body>
<input id="name"><button id="go" onclick="document.getElementById('out').textContent += '!'">Go</button><p id="out"></p>
<script>window.__recorded = [];</script>
<script src="${serverUrl}/sdk/recorder.js"></script>
<script>Tapedeck.start({ publicKey: ${JSON.stringify(publicKey)}, serverUrl: ${JSON.stringify(serverUrl)}, meta: { suite: 'service-crash' },
  recordOptions: { emit: function (e) { window.__recorded.push(JSON.parse(JSON.stringify(e))); } } });</script>
</body></html>`;
}

type Ev = { type: number; timestamp: number; data: unknown; sequenceId?: number; originalTimestamp?: number };
const strip = ({ sequenceId: _s, originalTimestamp: _o, ...rest }: Ev) => JSON.stringify(rest);
const port = (s: ServiceProcess) => Number(new URL(s.url).port);

slow('service instance killed (SIGKILL) during WebSocket capture by the recorder', () => {
  let stack: PrivateStack;
  let one: ServiceProcess;
  let two: ServiceProcess;
  let proxy: TcpProxy;
  let pages: PageServer;
  let browser: Browser;

  beforeAll(async () => {
    stack = await PrivateStack.start();
    // Instance 1 only serves the API; instance 2 also projects (so nothing waits for ack_wait of a dead projector).
    [one, two] = [await stack.startService('one', { TAPEDECK_ROLE: 'api' }), await stack.startService('two')];
    proxy = await TcpProxy.start(port(one));
    pages = await PageServer.start({ '/': () => page(proxy.url, stack.keys.publicKey) });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.cut();
    await pages?.close();
    await stack?.close();
  });

  it('the recorder reconnects through the proxy to the other instance; nothing recorded or acknowledged is lost', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const errors: string[] = [];
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${pages.url}/`);
    const stats = () => p.evaluate(() => (window as any).Tapedeck.stats());
    const activity = async (label: string, n: number) => {
      for (let i = 0; i < n; i++) {
        await p.click('#go');
        await p.type('#name', `${label}${i}`);
      }
    };
    await activity('a', 3);
    await pollUntil(stats, (s) => s && s.acked >= 1 && s.transport === 'websocket', 30_000);

    // Instance 1 hangs first, so batches are on its socket without an ack when it dies.
    one.child.kill('SIGSTOP');
    await activity('b', 3);
    const atKill = await pollUntil(stats, (s) => s.inFlight >= 1, 30_000, 50);
    const killedAt = Date.now();
    await one.stop('SIGKILL');
    await activity('c', 3);
    proxy.retarget(port(two));
    const retargetedAt = Date.now();
    await p.evaluate(() => (window as any).Tapedeck.flush());
    const recoveredAt = Date.now();
    const afterKill = await stats();
    expect(afterKill).toMatchObject({ pending: 0, dropped: 0, lost: 0 });
    await activity('d', 3);
    await p.evaluate(() => (window as any).Tapedeck.flush());
    const final = await stats();
    expect(final).toMatchObject({ pending: 0, dropped: 0, lost: 0 });
    expect(final.resent).toBeGreaterThanOrEqual(atKill.inFlight);
    const recordingId: string = await p.evaluate(() => (window as any).Tapedeck.getRecordingId());
    // Stop recording (delivering the rest) so that nothing is recorded after __recorded is read.
    await p.evaluate(() => (window as any).Tapedeck.stop());
    const recorded: Ev[] = await p.evaluate(() => (window as any).__recorded);
    await ctx.close();

    const r = await stack.api(`/recordings/${recordingId}/events`, { base: two.url });
    expect(r.status).toBe(200);
    const stored = r.json<Ev[]>();
    const expected = recorded.filter((e) => !(e.type === 5 && (e.data as { tag?: string }).tag === 'recording-meta'));
    expect(stored.map(strip)).toEqual([...expected].sort((a, b) => a.timestamp - b.timestamp).map(strip));
    const seqs = stored.map((e) => e.sequenceId);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(errors).toEqual([]);

    // The projection (instance 2) counts the same events.
    const listed = await pollUntil(
      () => stack.api('/recordings?limit=10', { base: two.url }).then((x) => x.json<{ recordings: { recordingId: string; eventCount: number }[] }>()),
      (l) => l.recordings.some((x) => x.recordingId === recordingId && x.eventCount === stored.length),
      60_000,
      250,
    );
    expect(listed.recordings).toHaveLength(1);
    console.log(
      `service crash: ${stored.length} events; at the kill ${atKill.inFlight} batches in flight unacknowledged, ${atKill.bufferedEvents} events not yet sent; ` +
        `everything acknowledged ${recoveredAt - retargetedAt} ms after the proxy switched (${retargetedAt - killedAt} ms after the kill), ` +
        `transport then ${afterKill.transport}; sent ${final.sent}, resent ${final.resent}, acked ${final.acked} batches`,
    );
  });
});
