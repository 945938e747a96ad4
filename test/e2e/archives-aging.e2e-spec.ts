// A sealed recording under the stream's age limit (docs/archives.md, "Deletion and retention"), on a
// stack of its own whose stream keeps messages STREAM_MAX_AGE_SECONDS (the tests' stand-in for
// STREAM_MAX_AGE_DAYS): the retention sweep deletes the recording whole before the stream would
// expire its records, so its archive goes too, reads never meet a record whose archive is gone, and
// once the marker has aged out as well the stream and the Object Store hold nothing of it.
import { randomUUID } from 'node:crypto';
import { nanos } from 'nats';
import { ArchiveStore } from '../../src/infrastructure/nats/archive-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { SealStates } from '../../src/infrastructure/nats/seal-states';
import { EVENTS_STREAM, recordingWildcard } from '../../src/infrastructure/nats/subjects';
import { sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import { natsClient, runCli, waitCaughtUp } from './projections-fixtures';

jest.setTimeout(180_000);

/** The stream's age limit: the sweep (every second) deletes a recording 28 s after its last write. */
const MAX_AGE_S = 30;

describe('a sealed recording under the stream age limit', () => {
  let stack: PrivateStack;
  let nats: NatsClient;
  let archives: ArchiveStore;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await PrivateStack.start();
    env = {
      ...stack.serviceEnv,
      STREAM_MAX_AGE_SECONDS: String(MAX_AGE_S),
      // JetStream refuses a duplicate window longer than the age limit.
      STREAM_DUPLICATE_WINDOW_SECONDS: '10',
      RETENTION_SWEEP_SECONDS: '1',
      ARCHIVE_IDLE_SECONDS: '0',
      ARCHIVE_REMOVE_DELAY_SECONDS: '0',
    };
    await stack.startService('service', env);
    nats = await natsClient(stack.serviceEnv.NATS_URL);
    archives = new ArchiveStore(nats);
  });

  afterAll(async () => {
    await nats?.close();
    await stack?.close();
  });

  const mine = async (id: string) => (await archives.list()).filter((o) => o.name.includes(`.${id}.`)).map((o) => o.name);
  async function storedSubjects(id: string): Promise<Record<string, number>> {
    const info = await nats.jsm.streams.info(EVENTS_STREAM, { subjects_filter: recordingWildcard(stack.keys.tenantId, id) });
    return (info.state.subjects ?? {}) as Record<string, number>;
  }

  it('deletes it whole before the stream ages it out: no archive, no message left, no failed read on the way', async () => {
    const id = randomUUID();
    const now = Date.now();
    for (let b = 0; b < 4; b++) {
      const r = await stack.api(`/recordings/${id}/events`, {
        method: 'POST',
        key: stack.keys.publicKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sampleEvents(10, now + b * 1000)),
      });
      expect(r.status).toBe(200);
    }
    await waitCaughtUp(nats);
    const before = (await stack.api(`/recordings/${id}/events`)).text;
    const sealed = await runCli(['recordings', 'seal', stack.keys.tenantId, id, '--json'], env).done;
    expect(JSON.parse(sealed.stdout)).toMatchObject({ status: 'sealed', batches: 4 });
    expect(await mine(id)).toHaveLength(1);
    // The bucket's own age limit, a backstop, outlasts the records: the stream's limit plus a day.
    expect((await nats.jsm.streams.info('OBJ_tapedeck_archives')).config.max_age).toBe(nanos((MAX_AGE_S + 86_400) * 1000));

    // Read throughout: the whole recording, then (deleted) 404; never a 503 from a record whose archive is gone.
    const seen = new Set<string>();
    const gone = await pollUntil(
      async () => {
        const r = await stack.api(`/recordings/${id}/events`);
        seen.add(r.status === 200 ? (r.text === before ? 'same' : 'different') : String(r.status));
        return { status: r.status, archives: await mine(id), subjects: await storedSubjects(id) };
      },
      (s) => s.status === 404 && s.archives.length === 0 && Object.keys(s.subjects).length === 0,
      3 * MAX_AGE_S * 1000,
      250,
    ).catch(async () => ({ archives: await mine(id), subjects: await storedSubjects(id) }));
    expect(gone).toMatchObject({ archives: [], subjects: {} });
    expect([...seen].sort()).toEqual(['404', 'same']);
    expect(await new SealStates(nats).get(stack.keys.tenantId, id)).toBeUndefined();
  });
});
