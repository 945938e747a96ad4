// The projector's pull when nats-server dies while a pull is outstanding (a nats-server of its own:
// it is frozen, killed and restarted). nats.js arms no timer on a no-wait pull, so one whose request
// was lost never ended and the projector stopped for good (found by a chaos audit: listings stale,
// /readyz "ready", until a restart). The pull must end, keeping what it had, and the next one work.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/config';
import { startNats } from '../../src/local/processes';
import { recordingSubject } from '../../src/infrastructure/nats/subjects';
import { JetStreamProjectionSource, PULL_GUARD_MS } from '../../src/projections/jetstream-projection-source';
import type { Projection } from '../../src/projections/projection';
import { useOwnNats } from '../harness/own-nats';

jest.setTimeout(90_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const projection: Projection = {
  name: 'loss-probe',
  filterSubject: 'td.rec.>',
  tables: [],
  bodyKinds: [],
  apply: () => ({ rows: {}, deletions: [], skipped: [] }),
};

const own = useOwnNats('pull-loss');

describe('JetStreamProjectionSource.fetch when nats-server dies mid-pull', () => {
  it('ends the pull whose answer was lost, keeping what it had, and the next pull works', async () => {
    const cfg = loadConfig({ NATS_URL: own.server.url });
    const source = new JetStreamProjectionSource(own.nats, projection, cfg);
    await source.ensure();
    const subject = recordingSubject('t_loss', randomUUID(), 'ev');
    for (let i = 0; i < 3; i++) await own.nats.js.publish(subject, new TextEncoder().encode(`m${i}`));

    // The first message comes at once; the no-wait pull for the rest goes out after the linger,
    // to a server that is frozen by then, and is killed before it answers.
    const started = Date.now();
    const pulling = source.fetch(10, { expiresMs: 1000, lingerMs: 1500 });
    await sleep(600);
    own.server.child.kill('SIGSTOP');
    await sleep(1500);
    await own.server.stop('SIGKILL');
    own.server = await startNats({ dir: own.dir, port: own.server.port });

    const outcome = await Promise.race([pulling.then((ds) => ds.length), sleep(PULL_GUARD_MS + 20_000).then(() => 'still pulling')]);
    expect(outcome).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(1500 + PULL_GUARD_MS + 15_000);

    // Connected again: the stored messages come back (redelivered once ack_wait passed, or pending).
    for (let i = 0; i < 50 && !own.nats.connected; i++) await sleep(200);
    await own.nats.js.publish(subject, new TextEncoder().encode('after'));
    const next = await source.fetch(10, { expiresMs: 1000, lingerMs: 100 });
    expect(next.length).toBeGreaterThanOrEqual(1);
  });
});
