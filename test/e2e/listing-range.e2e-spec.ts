// GET /recordings?startedAfter=…&startedBefore=…: a range of start times [after, before), alone, with a
// metadata filter, across pages, and its 400s. The recordings start on a random day weeks ago, so a
// range a few seconds wide holds only this file's recordings whatever else the tenant holds.
import { randomUUID } from 'node:crypto';
import { testEnv } from '../harness/env';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';

const run = `listing-range-${randomUUID()}`;
const list = (query: string) => api(`/recordings?${query}`, { key: testEnv().secretKey });
const ids = (r: Res) => (r.json().recordings as { recordingId: string }[]).map((x) => x.recordingId);
const iso = (ms: number) => new Date(ms).toISOString();

describe('GET /recordings with a range of start times', () => {
  const base = Date.now() - 20 * 86_400_000 - Math.floor(Math.random() * 86_400_000);
  const made: string[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      expect((await postEvents(id, sampleEvents(5, base + i * 1000))).status).toBe(200);
      const meta = { run, team: i % 2 === 0 ? 'even' : 'odd' };
      const attached = await api(`/recordings/${id}/metadata`, {
        method: 'POST',
        key: testEnv().publicKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(meta),
      });
      expect(attached.status).toBe(200);
      made.push(id);
    }
    await pollUntil(
      () => list(`metadata[run]=${run}&limit=100`),
      (r) => r.status === 200 && r.json().recordings.length === 5,
      20_000,
    );
  });

  it('lists the recordings started in [startedAfter, startedBefore), newest first, each end in either format', async () => {
    const r = await list(`startedAfter=${base + 1000}&startedBefore=${encodeURIComponent(iso(base + 4000))}`);
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual([made[3], made[2], made[1]]);
    for (const x of r.json().recordings as { startedAt: number }[]) expect(x.startedAt >= base + 1000 && x.startedAt < base + 4000).toBe(true);
    // An offset other than Z names the same instant.
    const offset = new Date(base + 3000 + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect(ids(await list(`startedAfter=${encodeURIComponent(offset)}&startedBefore=${base + 60_000}`))).toEqual([made[4], made[3]]);
    // One end open: everything of this file after a start, or (with the run filter) before an end.
    expect(ids(await list(`startedAfter=${base + 4000}&startedBefore=${base + 60_000}`))).toEqual([made[4]]);
    expect(ids(await list(`metadata[run]=${run}&startedBefore=${base + 2000}`))).toEqual([made[1], made[0]]);
    expect(ids(await list(`startedAfter=${base + 5000}&startedBefore=${base + 6000}`))).toEqual([]);
  });

  it('combines with a metadata filter (AND)', async () => {
    const r = await list(`metadata[team]=even&metadata[run]=${run}&startedAfter=${base + 1}&startedBefore=${base + 60_000}`);
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual([made[4], made[2]]);
  });

  it('pages through a range: pages neither repeat nor skip, hasMore on all but the last', async () => {
    const range = `startedAfter=${base}&startedBefore=${base + 4001}`;
    const seen: string[] = [];
    for (let offset = 0; offset < 6; offset += 2) {
      const r = await list(`${range}&limit=2&offset=${offset}`);
      expect(r.status).toBe(200);
      expect(r.json().hasMore).toBe(offset + 2 < 5);
      seen.push(...ids(r));
    }
    expect(seen).toEqual([...made].reverse());
    expect(ids(await list(`${range}&metadata[team]=odd&limit=1&offset=1`))).toEqual([made[1]]);
  });

  it.each([
    ['startedAfter=yesterday', /"path":"startedAfter","message":"must be epoch milliseconds or ISO 8601/],
    ['startedBefore=2026-01-01T00:00:00', /"path":"startedBefore","message":"must be epoch milliseconds or ISO 8601/],
    ['startedAfter=2026-02-30', /"path":"startedAfter","message":"is not a date of the calendar"/],
    ['startedAfter=2000&startedBefore=1000', /"path":"startedAfter","message":"startedAfter must be before startedBefore"/],
    ['startedAfter=1000&startedBefore=1000', /"path":"startedAfter","message":"startedAfter must be before startedBefore"/],
    ['startedSince=1000', /"path":"startedSince","message":"unknown parameter; this endpoint takes [^"]*startedAfter, startedBefore/],
  ])('answers 400 JSON naming the parameter for %s', async (query, message) => {
    const r = await list(query);
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.text).toMatch(message);
  });
});
