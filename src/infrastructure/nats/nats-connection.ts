// The one NATS connection of the process. It reconnects forever; `connected` tells callers whether
// a publish can be expected to succeed now, so ingestion answers 503 at once while NATS is away.
import { Logger } from '@nestjs/common';
import { connect, JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import type { AppConfig } from '../../config/config';

export class NatsClient {
  private readonly logger = new Logger('nats');
  connected = false;
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
  ) {}

  static async connect(cfg: AppConfig, name = 'tapedeck'): Promise<NatsClient> {
    const nc = await connect({
      servers: cfg.NATS_URL.split(',').map((s) => s.trim()),
      user: cfg.NATS_USER,
      pass: cfg.NATS_PASSWORD,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      reconnectJitter: 100,
      waitOnFirstConnect: true,
      pingInterval: 5000,
      maxPingOut: 2,
      // Each request would otherwise build an Error (a stack capture) up front in case it times out:
      // measurable per ingested batch, for a trace that names only nats.js internals anyway.
      noAsyncTraces: true,
    });
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
