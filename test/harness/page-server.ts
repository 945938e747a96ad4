// Serves test pages from a loopback origin (Chromium refuses requests from public origins to
// loopback services, so pages must live on 127.0.0.1 too).
import { createServer, Server } from 'node:http';

export class PageServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** `pages` maps a path to HTML (or a function producing it). */
  static async start(pages: Record<string, string | (() => string)>): Promise<PageServer> {
    const server = createServer((req, res) => {
      const page = pages[new URL(req.url ?? '/', 'http://x').pathname];
      if (page === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(typeof page === 'function' ? page() : page);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new PageServer(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
