// The least any ingestion service in front of JetStream can do, run as a child of the ingestion bench:
// take an HTTP body or a WebSocket frame, publish it with a Nats-Msg-Id, answer once JetStream acked.
// No framework, no authentication, no validation, no summary, no projector. What it reaches on this
// machine is the ceiling for the service's ratio to the raw baseline: the service does all of this
// and more. Publishes to a stream of its own, so nothing reaches the service's projections.
import { createServer } from 'node:http';
import { connect, headers } from 'nats';
import { WebSocketServer } from 'ws';

export const BARE_PROXY_STREAM = 'BENCH_BARE_PROXY';

async function main() {
  const nc = await connect({ servers: process.env.NATS_URL });
  const js = nc.jetstream();
  let n = 0;
  const publish = (data: Uint8Array, id: string) => {
    const h = headers();
    h.set('Td-Batch', id);
    return js.publish(`bench.bare.${n % 64}`, data, { msgID: id, headers: h });
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      publish(Buffer.concat(parts), `h${n++}`).then(
        () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
        () => res.writeHead(503).end(),
      );
    });
  });
  // The bench's frames are {"type":"batch","batch":"<id>","events":[…]}: the id is read, not parsed.
  new WebSocketServer({ server }).on('connection', (ws) =>
    ws.on('message', (data: Buffer) => {
      const batch = /"batch":"([^"]+)"/.exec(data.toString('latin1', 0, 200))?.[1] ?? '';
      publish(data, `w${n++}`).then(
        () => ws.send(`{"type":"ack","batch":"${batch}"}`),
        () => ws.send(`{"type":"error","batch":"${batch}"}`),
      );
    }),
  );
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as { port: number }).port));
  process.on('disconnect', () => process.exit(0));
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(String(e?.stack ?? e) + '\n');
    process.exit(1);
  });
}
