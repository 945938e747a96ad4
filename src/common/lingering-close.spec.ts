// With a plain Node server standing in for Fastify (which answers 413 with Connection: close before
// reading the body). That every uploading client then reads its 413 is shown end to end, against the
// service, in test/e2e/limits.e2e-spec.ts (it fails without lingering).
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { lingerAfterEarlyAnswer } from './lingering-close';

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * A client that sends `head`, then a byte every 50 ms and keeps its side open after the server's FIN
 * (allowHalfOpen), as a slow upload does: the socket closes when the server destroys its side.
 */
function slowUpload(port: number, head: string): Promise<{ text: string; closedAfterMs: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const sock = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    const trickle = setInterval(() => sock.writable && sock.write(' '), 50);
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearInterval(trickle);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    sock.write(head);
  });
}

describe('lingerAfterEarlyAnswer', () => {
  let server: Server | undefined;
  afterEach(() => new Promise((r) => (server ? server.close(r) : r(undefined))));

  it('keeps taking the body of a request answered early, then closes after the linger time', async () => {
    const s = await listen((req, res) => {
      lingerAfterEarlyAnswer(req, 300);
      res.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('too large');
    });
    server = s.server;
    const { text, closedAfterMs } = await slowUpload(s.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n[`);
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(250);
    expect(closedAfterMs).toBeLessThan(5000);
  });

  it('leaves a request whose body was read alone: the server drops the connection right after the answer', async () => {
    const s = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        lingerAfterEarlyAnswer(req, 60_000);
        res.writeHead(200, { connection: 'close' }).end('ok');
      });
    });
    server = s.server;
    // A silent client that keeps its side open: only the server's own close ends the connection.
    const sock = connect({ port: s.port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    sock.on('data', (d) => (text += d.toString('latin1')));
    sock.on('error', () => undefined);
    sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n[]`);
    const connections = () => new Promise<number>((r) => s.server.getConnections((_e, n) => r(n)));
    const deadline = Date.now() + 2000;
    while (!text.includes('ok') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    while ((await connections()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await connections()).toBe(0);
    sock.destroy();
  });
});
