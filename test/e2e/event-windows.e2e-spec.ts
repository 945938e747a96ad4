// Windows on event reads over HTTP (GET /recordings/{id}/events and the replay event reads): a window
// begins at the keyframe at or before `from` with its Meta, whichever batch holds it, and equals the
// same cut of the whole read, byte for byte; limit, the time selector forms and plain epoch ms; bad
// values are JSON 400s naming the parameter, a window missing the recording a 422; a recording
// without keyframes is read from its start; presigned links still open only their own recording.
import { randomBytes, randomUUID } from 'node:crypto';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { createTenant, nowSeconds, presign, qs, TenantCreds } from './auth-fixtures';

type Ev = { type: number; timestamp: number; data: any; originalTimestamp: number; recordingId?: string };

const T0 = Date.UTC(2032, 0, 1);
/** Batch b: ten events at T0 + b * 1000 + i * 10; keyframes open batches 0 and 4, one is split over 1 (Meta) and 2 (FullSnapshot). */
function batch(b: number, sessionId?: string) {
  const at = T0 + b * 1000;
  const events: any[] = sampleEvents(10, at).map((e, i) => ({ ...e, timestamp: at + i * 10 }));
  if (b !== 0 && b !== 4) events.splice(0, 2, ...[0, 1].map((i) => ({ type: 3, timestamp: at + i * 10, data: { source: 1, positions: [] } })));
  if (b === 1) events[9] = { ...sampleEvents(1, at + 90)[0], timestamp: at + 90 };
  if (b === 2) events[0] = { ...sampleEvents(2, at)[1], timestamp: at };
  if (sessionId && b === 0) events.push({ type: 5, timestamp: at + 95, data: { tag: 'recording-meta', payload: { sessionId } } });
  return events;
}

let T: TenantCreds;
let other: TenantCreds;
const rec = randomUUID();
const bare = randomUUID(); // no keyframe at all
const session = `win-${randomBytes(4).toString('hex')}`;
let full: Ev[];
let fullText: string;

const get = (path: string, key = T.secretKey) => api(path, { key });
const events = (id: string, query: string, key = T.secretKey) => get(`/recordings/${id}/events${query ? `?${query}` : ''}`, key);
/** The whole read from the Meta at `metaTs` (the first event when undefined) to `to`, at most `limit` events. */
function cut(metaTs: number | undefined, to = Infinity, limit = Infinity): Ev[] {
  const start = metaTs === undefined ? 0 : full.findIndex((e) => e.timestamp === metaTs && e.type === 4);
  return full
    .slice(start)
    .filter((e) => e.timestamp <= to)
    .slice(0, limit);
}
const issue = (r: Res) => [r.status, r.json().issues?.[0]?.path];

beforeAll(async () => {
  T = await createTenant('win');
  other = await createTenant('win');
  for (let b = 0; b < 6; b++) {
    expect((await postEvents(rec, batch(b, session), T.publicKey)).status).toBe(200);
    const noKeyframe = batch(b).map((e) => (e.type === 2 || e.type === 4 ? { type: 3, timestamp: e.timestamp, data: { source: 1, positions: [] } } : e));
    expect((await postEvents(bare, noKeyframe, T.publicKey)).status).toBe(200);
  }
  const r = await events(rec, '');
  fullText = r.text;
  full = r.json<Ev[]>();
});

describe('GET /recordings/{id}/events with a window', () => {
  it('answers the whole recording without from, to and limit, unknown parameters ignored as before', async () => {
    expect(full).toHaveLength(60);
    expect((await events(rec, 'other=1')).text).toBe(fullText);
  });

  it.each([
    ['a keyframe in the same batch', `from=epoch:${T0 + 4500}`, T0 + 4000, undefined],
    ['a Meta stored in the batch before its FullSnapshot', `from=${T0 + 3050}&to=epoch:${T0 + 3500}`, T0 + 1090, T0 + 3500],
    ['the keyframe exactly at from', `from=epoch:${T0 + 1090}&to=${T0 + 2000}`, T0 + 1090, T0 + 2000],
    ['the first keyframe', `from=offset:500&to=offset:1200`, T0, T0 + 1200],
    ['percent', 'from=percent:90', T0 + 4000, undefined],
    ['the last second (offset back from the end)', 'from=offset:-1000', T0 + 4000, undefined],
    ['to alone', `to=epoch:${T0 + 1500}`, undefined, T0 + 1500],
  ])('begins at the keyframe at or before from: %s', async (_name, query, metaTs, to) => {
    const r = await events(rec, query);
    expect(r.status).toBe(200);
    const got = r.json<Ev[]>();
    expect(got).toEqual(cut(metaTs, to));
    if (metaTs !== undefined) expect(got[0].type).toBe(4);
    expect(r.text).toBe(JSON.stringify(got)); // events as stored: the same bytes as in the whole read
    expect(fullText).toContain(r.text.slice(1, -1));
  });

  it('takes the first limit events of the window, and of the recording', async () => {
    expect((await events(rec, `from=epoch:${T0 + 4500}&limit=3`)).json()).toEqual(cut(T0 + 4000, Infinity, 3));
    expect((await events(rec, 'limit=1')).json()).toEqual(full.slice(0, 1));
    expect((await events(rec, 'limit=1000000')).text).toBe(fullText);
  });

  it('reads a recording without any keyframe from its start', async () => {
    const whole = (await events(bare, '')).json<Ev[]>();
    expect((await events(bare, `from=epoch:${T0 + 4500}&to=epoch:${T0 + 4600}`)).json()).toEqual(whole.filter((e) => e.timestamp <= T0 + 4600));
  });

  it('answers a JSON 400 naming the parameter for a bad value', async () => {
    expect(issue(await events(rec, 'from=minute:3'))).toEqual([400, 'from']);
    expect(issue(await events(rec, 'to=percent:101'))).toEqual([400, 'to']);
    expect(issue(await events(rec, 'from='))).toEqual([400, 'from']);
    expect(issue(await events(rec, 'from=1&from=2'))).toEqual([400, 'from']);
    for (const limit of ['0', '-1', '1.5', 'x', '1000001']) expect(issue(await events(rec, `limit=${limit}`))).toEqual([400, 'limit']);
    const reversed = await events(rec, `from=epoch:${T0 + 3000}&to=epoch:${T0 + 2000}`);
    expect(issue(reversed)).toEqual([400, 'from']);
    expect(reversed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(issue(await events(rec, 'from=offset:-100&to=offset:100'))).toEqual([400, 'from']); // reversed once resolved
    expect((await events('not-a-uuid', 'from=bad')).json().message).toMatch(/^Invalid recordingId/);
  });

  it('answers 422 for a window that misses the recording, 404 for no recording', async () => {
    const after = await events(rec, `from=epoch:${T0 + 9000}`);
    expect([after.status, after.text]).toEqual([422, expect.stringContaining("is after the recording's last event")]);
    expect((await events(rec, `to=${T0 - 1}`)).status).toBe(422);
    expect((await events(rec, 'from=offset:6000')).status).toBe(422);
    expect((await events(randomUUID(), 'from=offset:0')).status).toBe(404);
  });

  it('keeps presigned links to their recording', async () => {
    const link = qs(presign(`/recordings/${rec}`, T));
    const window = `from=epoch:${T0 + 4500}&limit=2`;
    const r = await api(`/recordings/${rec}/events?${window}&${link}`);
    expect([r.status, r.json()]).toEqual([200, cut(T0 + 4000, Infinity, 2)]);
    expect((await api(`/recordings/${bare}/events?${window}&${link}`)).status).toBe(403);
    expect((await api(`/recordings/${rec}/events?${window}&${qs(presign(`/recordings/${rec}`, T, nowSeconds() - 1))}`)).status).toBe(403);
    expect((await api(`/recordings/${rec}/events?${window}&${qs(presign(`/recordings/${rec}`, other))}`)).status).toBe(404); // another tenant's
    expect((await events(rec, window, other.secretKey)).status).toBe(404);
  });
});

describe('replay event reads with a window', () => {
  const replayEvents = (query: string) => get(`/replays/sessionId/${session}/events${query ? `?${query}` : ''}`);
  let whole: Ev[];

  beforeAll(async () => {
    whole = (
      await pollUntil(
        () => replayEvents(''),
        (r) => r.status === 200,
        20_000,
      )
    ).json<Ev[]>();
  });

  it("cuts the replay's own timeline from the keyframe at or before from", async () => {
    expect(whole).toHaveLength(60);
    // Replay time of the three keyframes' Metas (page views start at them, renumbered with gaps).
    const metas = whole.filter((e) => e.type === 4).map((e) => e.timestamp);
    expect(metas).toHaveLength(3);
    const last = whole[whole.length - 1].timestamp;
    const from = (metaTs: number) => whole.slice(whole.findIndex((e) => e.type === 4 && e.timestamp === metaTs));
    const r = (await replayEvents(`from=offset:${metas[1] + 500}&to=${metas[2] - 100}`)).json<Ev[]>();
    expect(r).toEqual(from(metas[1]).filter((e) => e.timestamp <= metas[2] - 100));
    expect(r[0].originalTimestamp).toBe(T0 + 1090);
    expect((await replayEvents('from=percent:99&limit=4')).json()).toEqual(from(metas[2]).slice(0, 4));
    const composed = (await get(`/replays/sessionId/${session}?from=offset:-1`)).json<{ metadata: unknown; events: Ev[] }>();
    expect(composed.events).toEqual(from(metas[2]));
    expect((await get(`/replay?metadata[sessionId]=${session}&to=${last - 1}`)).json()).toEqual(whole.slice(0, -1));
  });

  it('answers 400 naming the parameter and 422 outside the replay; presigned replay links take windows too', async () => {
    expect(issue(await replayEvents('limit=0'))).toEqual([400, 'limit']);
    expect(issue(await replayEvents('from=4000&to=3000'))).toEqual([400, 'from']);
    expect(issue(await get(`/replay?metadata[sessionId]=${session}&to=never`))).toEqual([400, 'to']);
    expect((await replayEvents('from=offset:999999')).status).toBe(422);
    const link = qs(presign(`/replays/sessionId/${session}`, T));
    expect((await api(`/replays/sessionId/${session}/events?limit=2&${link}`)).json()).toEqual(whole.slice(0, 2));
    expect((await api(`/recordings/${rec}/events?limit=2&${link}`)).status).toBe(403);
  });
});
