// A three-node NATS cluster with JetStream on loopback for fault and scale tests: each node has its
// own client port, cluster port, store directory and server name, and routes to the other two. Nodes
// can be killed and restarted on the same ports and data directories; the stream leader is read from
// JetStream (`streams.info(...).cluster.leader`).
import { join } from 'node:path';
import { AckPolicy, connect, JetStreamManager, nanos, NatsConnection } from 'nats';
import { freePort, ManagedProcess, startNats } from '../../src/local/processes';
import { pollUntil } from './poll-until';

export interface ClusterNode {
  name: string;
  port: number;
  clusterPort: number;
  dir: string;
  proc?: ManagedProcess;
}

export class NatsCluster {
  private admin?: { nc: NatsConnection; jsm: JetStreamManager };

  private constructor(
    readonly nodes: ClusterNode[],
    private readonly clusterName: string,
  ) {}

  /**
   * Starts `size` nodes and waits until JetStream has a meta leader. A port found free can be taken
   * by another process's connection before nats-server binds it (the node then exits at once): the
   * cluster is started again on fresh ports and directories, three times at most.
   */
  static async start(dir: string, size = 3, clusterName = 'tapedeck-test'): Promise<NatsCluster> {
    for (let attempt = 1; ; attempt++) {
      const nodes: ClusterNode[] = [];
      for (let i = 1; i <= size; i++)
        nodes.push({ name: `n${i}`, port: await freePort(), clusterPort: await freePort(), dir: join(dir, `nats-n${i}-${attempt}`) });
      const cluster = new NatsCluster(nodes, clusterName);
      try {
        // allSettled: when one node fails, the others have finished starting before they are stopped.
        const started = await Promise.allSettled(nodes.map((n) => cluster.startNode(n)));
        const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
        await cluster.waitJetStream();
        return cluster;
      } catch (e) {
        await cluster.stop();
        if (attempt >= 3 || !/exited with code|already in use/.test(String((e as Error)?.message))) throw e;
      }
    }
  }

  /** Every node's client URL, comma-separated (NATS_URL). */
  get url(): string {
    return this.nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
  }

  node(name: string): ClusterNode {
    const n = this.nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no cluster node ${name}`);
    return n;
  }

  private startNode(n: ClusterNode): Promise<void> {
    const routes = this.nodes.filter((o) => o !== n).map((o) => `nats://127.0.0.1:${o.clusterPort}`);
    return startNats({
      dir: n.dir,
      port: n.port,
      args: ['--name', n.name, '--cluster_name', this.clusterName, '--cluster', `nats://127.0.0.1:${n.clusterPort}`, '--routes', routes.join(',')],
    }).then((p) => void (n.proc = p));
  }

  /**
   * A JetStream admin connection to the cluster (created on first use). Requests time out after 1 s,
   * so a poll moves on quickly while the connection fails over from a killed node.
   */
  async client(): Promise<{ nc: NatsConnection; jsm: JetStreamManager }> {
    if (!this.admin) {
      const nc = await connect({ servers: this.url.split(','), name: 'cluster-harness', maxReconnectAttempts: -1, reconnectTimeWait: 100 });
      this.admin = { nc, jsm: await nc.jetstreamManager({ timeout: 1000, checkAPI: false }) };
    }
    return this.admin;
  }

  /** Waits until the JetStream API answers (a meta leader is elected). */
  async waitJetStream(timeoutMs = 60_000): Promise<void> {
    const c = await this.client();
    await pollUntil(
      () => c.jsm.getAccountInfo(),
      () => true,
      timeoutMs,
      250,
    );
  }

  /** Name of the node leading `stream`, once one is elected and (optionally) it is not `not`. */
  async streamLeader(stream: string, opts: { not?: string; timeoutMs?: number } = {}): Promise<string> {
    const c = await this.client();
    const info = await pollUntil(
      () => c.jsm.streams.info(stream),
      (i) => !!i.cluster?.leader && i.cluster.leader !== opts.not,
      opts.timeoutMs ?? 60_000,
      100,
    );
    return info.cluster!.leader!;
  }

  /**
   * The history one node holds of `stream`: (sequence, value of header `header`) of every message,
   * read through an ephemeral consumer re-created until JetStream places it on `node` (placement of
   * R1 consumers is random among the stream's peers). Replicas must agree with the leader; this
   * shows when they do not.
   */
  async historyOn(node: string, stream: string, header: string): Promise<[number, string][]> {
    const { nc } = await this.client();
    // Consumer creation goes through the meta leader and can take longer than the 1 s admin timeout.
    const jsm = await nc.jetstreamManager({ timeout: 10_000, checkAPI: false });
    for (let attempt = 0; attempt < 60; attempt++) {
      const ci = await jsm.consumers.add(stream, {
        ack_policy: AckPolicy.None,
        headers_only: true,
        mem_storage: true,
        num_replicas: 1,
        inactive_threshold: nanos(30_000),
      });
      if (ci.cluster?.leader !== node) {
        await jsm.consumers.delete(stream, ci.name).catch(() => undefined);
        continue;
      }
      const out: [number, string][] = [];
      const consumer = await nc.jetstream().consumers.get(stream, ci.name);
      try {
        if (ci.num_pending === 0) return out;
        const it = await consumer.consume({ max_messages: 1000, idle_heartbeat: 1000 });
        for await (const m of it) {
          out.push([m.seq, m.headers?.get(header) ?? '']);
          if (m.info.pending === 0) break;
        }
        it.stop();
        return out;
      } finally {
        await consumer.delete().catch(() => undefined);
      }
    }
    throw new Error(`no consumer of ${stream} placed on ${node}`);
  }

  /** Kills one node (SIGKILL by default) and waits for it to exit. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const n = this.node(name);
    await n.proc?.stop(signal);
    n.proc = undefined;
  }

  /** Starts a killed node again with the same ports, name and data directory. */
  async restart(name: string): Promise<void> {
    const n = this.node(name);
    if (n.proc) throw new Error(`${name} is running`);
    await this.startNode(n);
  }

  /** Pids of the running nodes (for emergency clean-up). */
  pids(): number[] {
    return this.nodes.flatMap((n) => (n.proc?.child.pid ? [n.proc.child.pid] : []));
  }

  async stop(): Promise<void> {
    await this.admin?.nc.close().catch(() => undefined);
    this.admin = undefined;
    await Promise.all(this.nodes.map((n) => n.proc?.stop('SIGKILL') ?? Promise.resolve()));
    for (const n of this.nodes) n.proc = undefined;
  }
}
