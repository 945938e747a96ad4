// GET /recordings?live=true|false and the items' `live` (docs/limits.md), on a private stack with a short
// idle time (LIVE_IDLE_SECONDS=5): recordings that keep receiving batches are live, even with a browser
// clock hours behind; those idle longer than that are not. Live by the server's time of storing.
import { randomUUID } from 'node:crypto';
import { api, Res, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';

const IDLE_SECONDS = 5;
let stack: PrivateStack;

beforeAll(async () => {
  stack = await PrivateStack.start({ env: { LIVE_IDLE_SECONDS: String(IDLE_SECONDS) } });
  try {
    await stack.startService('live-listing');
  } catch (e) {
    await stack.close();
    throw e;
  }
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

/** A POST of JSON with the public key: events or metadata. */
const write = (path: string, body: unknown) =>
  api(path, { method: 'POST', base: stack.url, key: stack.keys.publicKey, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const post = (id: string, events: unknown) => write(`/recordings/${id}/events`, events);
const attach = (id: string, metadata: Record<string, string>) => write(`/recordings/${id}/metadata`, metadata);
const list = (query: string) => stack.api(`/recordings?${query}`);
const ids = (r: Res) => (r.json().recordings as { recordingId: string }[]).map((x) => x.recordingId);
const listing = (query: string, expected: string[]) =>
  pollUntil(
    () => list(query),
    (r) => r.status === 200 && JSON.stringify(ids(r)) === JSON.stringify(expected),
    30_000,
  );

async function record(start: number, team: string): Promise<string> {
  const id = randomUUID();
  expect((await post(id, sampleEvents(5, start))).status).toBe(200);
  expect((await attach(id, { team })).status).toBe(200);
  return id;
}

describe('live recordings', () => {
  const now = Date.now();
  const made: Record<string, string> = {};
  let keepAlive: NodeJS.Timeout | undefined;

  afterAll(() => clearInterval(keepAlive));

  beforeAll(async () => {
    made.idleA = await record(now - 10 * 60_000, 'a');
    made.idleB = await record(now - 9 * 60_000, 'b');
    await listing('limit=100', [made.idleB, made.idleA]);
    // A browser clock three hours behind: its events are old, its batches arrive now.
    const skewed = now - 3 * 3_600_000;
    made.liveA1 = await record(skewed + 1000, 'a');
    made.liveA2 = await record(skewed + 2000, 'a');
    made.liveB = await record(skewed + 3000, 'b');
    let n = 0;
    keepAlive = setInterval(() => {
      n++;
      for (const id of [made.liveA1, made.liveA2, made.liveB]) void post(id, sampleEvents(3, skewed + 10_000 + n).slice(2)).catch(() => undefined);
    }, 500);
  }, 60_000);

  it('lists recordings still receiving batches under live=true, idle ones under live=false, newest first', async () => {
    const live = await listing('live=true', [made.liveB, made.liveA2, made.liveA1]);
    for (const item of live.json().recordings) {
      expect(item.live).toBe(true);
      expect(Math.abs(item.lastActivityAt - Date.now())).toBeLessThan(IDLE_SECONDS * 1000);
      expect(item.endedAt).toBeLessThan(now - 2 * 3_600_000); // the events' own clock, untouched
    }
    const idle = await listing('live=false', [made.idleB, made.idleA]);
    for (const item of idle.json().recordings) {
      expect(item.live).toBe(false);
      expect(Date.now() - item.lastActivityAt).toBeGreaterThanOrEqual(IDLE_SECONDS * 1000);
    }
    const all = await listing('limit=100', [made.idleB, made.idleA, made.liveB, made.liveA2, made.liveA1]);
    expect(all.json().recordings.map((r: { live: boolean }) => r.live)).toEqual([false, false, true, true, true]);
    expect((await listing('live=1', [made.liveB, made.liveA2, made.liveA1])).status).toBe(200);
    expect((await listing('live=0', [made.idleB, made.idleA])).status).toBe(200);
  });

  it('combines live with metadata filters and pagination', async () => {
    await listing('live=true&metadata[team]=a', [made.liveA2, made.liveA1]);
    await listing('live=false&metadata[team]=a', [made.idleA]);
    await listing('live=false&meta[team]=b', [made.idleB]);
    const first = await listing('live=true&metadata[team]=a&limit=1', [made.liveA2]);
    expect(first.json()).toMatchObject({ limit: 1, offset: 0, hasMore: true });
    const second = await listing('live=true&metadata[team]=a&limit=1&offset=1', [made.liveA1]);
    expect(second.json()).toMatchObject({ limit: 1, offset: 1, hasMore: false });
    const unfiltered = await listing('live=true&limit=2&offset=1', [made.liveA2, made.liveA1]);
    expect(unfiltered.json().hasMore).toBe(false);
    await listing('live=false&limit=1&offset=1', [made.idleA]);
    await listing('live=true&metadata[team]=none', []);
  });

  it('answers pages deeper than the verified ones with the scope in SQL (recordings FINAL)', async () => {
    for (const query of ['live=false&offset=600', 'live=false&metadata[team]=a&offset=600', 'live=true&offset=600']) {
      const r = await list(query);
      expect([query, r.status, r.json().recordings, r.json().hasMore]).toEqual([query, 200, [], false]);
    }
  });

  it('says live on the detail too', async () => {
    const live = await pollUntil(
      () => stack.api(`/recordings/${made.liveA1}`),
      (r) => r.status === 200 && r.json().live === true,
      30_000,
    );
    expect(live.json()).toMatchObject({ recordingId: made.liveA1, projected: true, live: true });
    const idle = await stack.api(`/recordings/${made.idleA}`);
    expect(idle.status).toBe(200);
    expect(idle.json()).toMatchObject({ recordingId: made.idleA, live: false });
  });

  it.each([
    ['live=yes', 'must be true or false'],
    ['live=', 'must be true or false'],
    ['live=TRUE', 'must be true or false'],
    ['live=true&live=false', 'must be true or false'],
  ])('refuses %s with a JSON 400 naming the parameter', async (query, message) => {
    const r = await list(query);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.json().issues).toEqual([{ path: 'live', message }]);
  });

  it('stops being live once its batches stop for longer than the idle time', async () => {
    clearInterval(keepAlive);
    await listing('live=true', []);
    await listing('live=false', [made.idleB, made.idleA, made.liveB, made.liveA2, made.liveA1]);
  });
});
