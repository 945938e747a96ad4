// A three-node NATS cluster holds the stream at 3 replicas (STREAM_REPLICAS=3, NATS_URL listing all
// three nodes). The node leading the stream is killed (SIGKILL) during HTTP and WebSocket ingestion:
// ingestion pauses while a new leader is elected, then continues; every acknowledged event is stored
// exactly once. The killed node then rejoins on the same ports and data directory.
import { randomUUID } from 'node:crypto';
import { EVENTS_STREAM } from '../../../src/infrastructure/nats/subjects';
import { pollUntil } from '../../harness/poll-until';
import { PrivateStack } from '../../harness/private-stack';
import { expectAckedStoredOnce, HttpIngester, WsIngester } from './ingest-clients';

// Slow: runs with TAPEDECK_SLOW_TESTS=1 (.ci/run sets it).
const slow = process.env.TAPEDECK_SLOW_TESTS ? describe : describe.skip;

slow('three-node NATS cluster, stream at 3 replicas: the stream leader killed during ingestion', () => {
  let stack: PrivateStack;
  const clients: (HttpIngester | WsIngester)[] = [];

  beforeAll(async () => {
    stack = await PrivateStack.start({ cluster: true });
    await stack.startService('service');
  });
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await stack?.close();
  });

  it('ingestion pauses while a new leader is elected, then continues; nothing acknowledged is lost', async () => {
    const cluster = stack.cluster!;
    const jsm = (await cluster.client()).jsm;
    const info = await jsm.streams.info(EVENTS_STREAM);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.replicas).toHaveLength(2);

    const key = stack.keys.publicKey;
    const shared = randomUUID();
    clients.push(
      new HttpIngester(() => stack.url, key, randomUUID(), 'h1'),
      new HttpIngester(() => stack.url, key, shared, 'h2'),
      new WsIngester(() => stack.url, key, randomUUID(), 'w1', 5, 50, 8),
      new WsIngester(() => stack.url, key, shared, 'w2', 5, 50, 8),
    );
    clients.forEach((c) => c.start());
    await pollUntil(
      async () => clients.map((c) => c.acked.size),
      (n) => n.every((x) => x >= 5),
      30_000,
    );

    const leader = await cluster.streamLeader(EVENTS_STREAM);
    const ackedAtKill = clients.map((c) => c.acked.size);
    const killedAt = Date.now();
    await cluster.kill(leader);
    const [[newLeader, electedAt], resumedAt] = await Promise.all([
      cluster.streamLeader(EVENTS_STREAM, { not: leader }).then((l) => [l, Date.now()] as const),
      pollUntil(
        async () => clients.map((c, i) => c.acked.size - ackedAtKill[i]),
        (n) => n.every((x) => x >= 5),
        90_000,
        50,
      ).then(() => Date.now()),
    ]);

    // The pause: the longest gap between two consecutive acks (of any client) around the kill.
    const ackTimes = clients.flatMap((c) => [...c.acked.values()].map((a) => a.at));
    const times = ackTimes.filter((t) => t >= killedAt - 2000 && t <= resumedAt).sort((a, b) => a - b);
    const pause = Math.max(...times.slice(1).map((t, i) => t - times[i]));
    const firstAfter = Math.min(...ackTimes.filter((t) => t > killedAt + 1000));
    // When each client was first acknowledged after the kill (acks in its first second may be of
    // publishes the old leader had stored), against when the test saw the new leader (late by up to
    // one admin request's timeout: the clients can be back before it).
    const firstPerClient = clients.map((c) => Math.min(...[...c.acked.values()].map((a) => a.at).filter((t) => t > killedAt + 1000)));
    const backAfterElection = firstPerClient.map((t) => t - electedAt);
    console.log(
      `stream leader ${leader} killed, ${newLeader} seen leading at +${electedAt - killedAt} ms; longest gap between acks ${pause} ms; ` +
        `first ack more than 1 s after the kill at +${firstAfter - killedAt} ms; each client acknowledged again at ${backAfterElection.map((d) => (d >= 0 ? '+' : '') + d).join(' / ')} ms from then; ` +
        `every client 5 acks further at +${resumedAt - killedAt} ms; refusals meanwhile ${clients.map((c) => `${c.prefix} ${JSON.stringify(c.failures)}`).join(', ')}; ` +
        `their messages, from the kill: ${
          clients
            .map((c) => c.describeRefusals(killedAt))
            .filter(Boolean)
            .join('; ') || 'none'
        }`,
    );
    // What the service owns: no request hangs while the stream has no leader (each is refused with
    // 503 at once or within the publish timeout), and every client is acknowledged again soon after
    // a leader is elected. How long the election itself takes is nats-server's (4-9 s here, once 30 s
    // on a loaded CI machine: docs/reliability.md); the bound on the whole pause only catches a stall.
    for (const c of clients) expect(Object.keys(c.failures).filter((k) => !['503', 'close', 'network'].includes(k))).toEqual([]);
    expect(Math.max(...backAfterElection)).toBeLessThan(10_000);
    expect(pause).toBeLessThan(75_000);

    // The killed node rejoins with its data directory and catches up as a replica.
    await cluster.restart(leader);
    await Promise.all(clients.map((c) => c.stop()));
    await pollUntil(
      () => jsm.streams.info(EVENTS_STREAM),
      (i) => (i.cluster?.replicas ?? []).length === 2 && i.cluster!.replicas!.every((r) => r.current && !r.offline),
      60_000,
      250,
    );

    // Each node's own history of the stream, against the leader's. On nats-server 2.9.10 the rejoined
    // node sometimes holds one message less, every later sequence shifted by one, while reporting itself
    // current (docs/reliability.md, "Stream leader loss"). Reads go through the stream leader, so the
    // checks below hold either way; this line shows whether the run met the divergence.
    const streamLeader = await cluster.streamLeader(EVENTS_STREAM);
    const compareReplicas = async () => {
      // Best effort: a diagnostic, not a promise (creating a consumer on one given node can time out).
      const views = new Map<string, [number, string][]>();
      const failed: string[] = [];
      for (const n of cluster.nodes) {
        await cluster.historyOn(n.name, EVENTS_STREAM, 'Td-Batch').then(
          (v) => views.set(n.name, v),
          (e) => failed.push(`${n.name}: ${(e as Error).message}`),
        );
      }
      const ref = views.get(streamLeader);
      if (!ref) return `no view of the leader (${failed.join('; ')})`;
      const firstDiff = (v: [number, string][]) => v.findIndex(([q, b], i) => ref[i]?.[0] !== q || ref[i]?.[1] !== b);
      const diverged = [...views].filter(([, v]) => v.length !== ref.length || firstDiff(v) >= 0);
      return (
        `leader ${streamLeader} holds ${ref.length} messages; ${failed.length ? `no view of ${failed.join('; ')}; ` : ''}` +
        (diverged.length === 0
          ? 'every replica agrees'
          : diverged.map(([n, v]) => `${n} holds ${v.length}, first difference at index ${firstDiff(v) >= 0 ? firstDiff(v) : v.length}`).join('; '))
      );
    };
    const first = await compareReplicas();
    const again = first.includes('first difference') ? `; 5 s later: ${await new Promise((r) => setTimeout(r, 5000)).then(compareReplicas)}` : '';
    console.log(`replica histories: ${first}${again}`);

    for (const c of clients) {
      expect(c.unexpected).toEqual([]);
      expect(Object.keys(c.failures).filter((k) => !['503', 'close', 'network'].includes(k))).toEqual([]);
    }
    console.log(`leader loss: ${await expectAckedStoredOnce(stack.url, stack.keys.secretKey, clients)}`);
  }, 240_000);
});
