// A loopback TCP proxy the test can cut: every open connection is destroyed and new ones are
// refused until `restore()`. Used to sever WebSockets between a browser and the service, and
// (`retarget`) to send new connections to another service instance, as a load balancer would.
import { createServer, Server, Socket, connect } from 'node:net';
import { freePort } from '../../src/local/processes';

export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private targetPort: number) {}

  static async start(targetPort: number): Promise<TcpProxy> {
    const p = new TcpProxy(targetPort);
    p.port = await freePort();
    await p.restore();
    return p;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
  }

  /** New connections go to `port` from now on; open ones stay where they are. */
  retarget(port: number): void {
    this.targetPort = port;
  }

  async cut(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    for (const sock of this.sockets) sock.destroy();
    this.sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
