// The NATS connection of the process (a batch thread has one of its own: ingestion/batch-worker.ts).
// It reconnects forever; `connected` tells callers whether a publish can be expected to succeed now,
// so ingestion answers 503 at once while NATS is away.
import { Logger } from '@nestjs/common';
import { connect, JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { withoutCredentials } from '../../common/redact';
import type { AppConfig } from '../../config/config';

/** How long a process waits for its first NATS connection before it gives up (as start-up's other NATS steps). */
const FIRST_CONNECT_MS = 60_000;

/** What a connection needs of the configuration (a batch thread is given only these). */
export type NatsSettings = Pick<AppConfig, 'NATS_URL' | 'NATS_USER' | 'NATS_PASSWORD'>;

export class NatsClient {
  private readonly logger = new Logger('nats');
  connected = false;
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
  ) {}

  /**
   * Connects, trying again for `firstConnectMs` while no server answers (each failure logged with
   * its reason), then gives up with an error naming the servers: waiting silently forever for the
   * first connection left a pod that never started and never said why. Once connected, it
   * reconnects forever.
   */
  static async connect(cfg: NatsSettings, name = 'tapedeck', firstConnectMs = FIRST_CONNECT_MS): Promise<NatsClient> {
    const servers = cfg.NATS_URL.split(',').map((s) => s.trim());
    const options = {
      servers,
      user: cfg.NATS_USER,
      pass: cfg.NATS_PASSWORD,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      reconnectJitter: 100,
      pingInterval: 5000,
      maxPingOut: 2,
      // Each request would otherwise build an Error (a stack capture) up front in case it times out:
      // measurable per ingested batch, for a trace that names only nats.js internals anyway.
      noAsyncTraces: true,
    };
    const where = withoutCredentials(cfg.NATS_URL);
    const deadline = Date.now() + firstConnectMs;
    let nc: NatsConnection;
    for (let attempt = 1; ; attempt++) {
      try {
        nc = await connect(options);
        break;
      } catch (e) {
        const reason = String((e as Error)?.message ?? e).slice(0, 300);
        if (Date.now() >= deadline) throw new Error(`Could not connect to NATS at ${where} within ${Math.round(firstConnectMs / 1000)} s: ${reason}`);
        new Logger('nats').warn({ msg: 'cannot reach NATS; retrying', servers: where, attempt, err: reason });
        await new Promise((r) => setTimeout(r, Math.min(2000, 250 * attempt)));
      }
    }
    const client = new NatsClient(nc, nc.jetstream(), await nc.jetstreamManager());
    client.connected = true;
    void client.watchStatus();
    return client;
  }

  /** Largest message the server accepts; chunks are cut below it. */
  get maxPayload(): number {
    return this.nc.info?.max_payload ?? 1024 * 1024;
  }

  private async watchStatus() {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') {
        this.connected = false;
        this.logger.warn({ msg: 'nats disconnected', server: String(s.data) });
      } else if (s.type === 'reconnect') {
        this.connected = true;
        this.logger.log({ msg: 'nats reconnected', server: String(s.data) });
      }
    }
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    try {
      await this.nc.drain();
    } catch {
      await this.nc.close().catch(() => undefined);
    }
  }
}
