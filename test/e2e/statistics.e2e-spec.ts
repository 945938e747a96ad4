// GET /statistics against what the events API returns for the same recordings, and against the
// listing: totals, series, event types, duration quantiles and breakdown must agree exactly.
import { randomUUID } from 'node:crypto';
import { testEnv } from '../harness/env';
import { api, postEvents, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';

const run = `stats-${randomUUID()}`;
const HOUR = 3_600_000;
const secret = () => testEnv().secretKey;

type Ev = { type: number; timestamp: number; data: Record<string, unknown> };

/** rrweb-like events of a recording: Meta, FullSnapshot, incremental, two custom events, one in-band metadata event. */
function events(start: number, n: number, team?: string, viewport?: { width: number; height: number }): Ev[] {
  const evs: Ev[] = sampleEvents(n, start, viewport);
  evs.push(
    { type: 5, timestamp: start + 2, data: { tag: 'note', payload: { i: 1 } } },
    { type: 5, timestamp: start + 3, data: { tag: 'note', payload: { i: 2 } } },
  );
  if (team) evs.push({ type: 5, timestamp: start + 1, data: { tag: 'recording-meta', payload: { team } } });
  return evs;
}

async function record(batches: Ev[][], metadata: Record<string, string> = {}): Promise<string> {
  const id = randomUUID();
  for (const b of batches) expect((await postEvents(id, b)).status).toBe(200);
  const r = await api(`/recordings/${id}/metadata`, {
    method: 'POST',
    key: testEnv().publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ run, ...metadata }),
  });
  expect(r.status).toBe(200);
  return id;
}

const readEvents = async (id: string): Promise<Ev[]> => (await api(`/recordings/${id}/events`, { key: secret() })).json();
const stats = (query: string) => api(`/statistics?metadata[run]=${run}&${query}`, { key: secret() });
const quantile = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);

describe('GET /statistics by minute', () => {
  it('puts each recording in the minute of its first event, late seconds too: the series sums to the totals', async () => {
    // ClickHouse 18.16 types Int64 % 60000 as Int16: a start 32.768 s or more into its minute wrapped
    // to an unaligned bucket, and the recording was missing from the series while the totals held it.
    const tag = `minute-${randomUUID()}`;
    const minute = Math.floor((Date.now() - 2 * 24 * HOUR) / 60_000) * 60_000;
    const starts = [minute + 10_000, minute + 50_000, minute + 60_000 + 59_999];
    for (const start of starts) {
      const id = randomUUID();
      expect((await postEvents(id, sampleEvents(4, start))).status).toBe(200);
      expect(
        (
          await api(`/recordings/${id}/metadata`, {
            method: 'POST',
            key: testEnv().publicKey,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ run: tag }),
          })
        ).status,
      ).toBe(200);
    }
    const query = `/statistics?metadata[run]=${tag}&from=${minute}&to=${minute + 3 * 60_000}&interval=minute`;
    const s = (
      await pollUntil(
        () => api(query, { key: secret() }),
        (r) => r.status === 200 && r.json().totals.recordings === 3,
        30_000,
      )
    ).json();
    expect(s.series).toEqual([
      { t: minute, recordings: 2, events: 8 },
      { t: minute + 60_000, recordings: 1, events: 4 },
      { t: minute + 120_000, recordings: 0, events: 0 },
    ]);
  });
});

describe('GET /statistics', () => {
  const from = Math.floor((Date.now() - 3 * 24 * HOUR) / HOUR) * HOUR;
  const to = from + 3 * HOUR;
  const inside: Record<string, string> = {};
  let metaEdges = '';
  const phone = { width: 390, height: 844 };

  beforeAll(async () => {
    inside.atFrom = await record([events(from, 10, 'x')]);
    inside.b = await record([events(from + 30 * 60_000, 25, undefined, phone)], { team: 'b' });
    inside.a = await record([events(from + 90 * 60_000, 7)], { team: 'a' });
    inside.noTeam = await record([events(to - 60_000, 3, undefined, phone)]);
    // Starts inside, goes on long after `to`: counts whole, in the bucket of its first event.
    inside.long = await record([events(from + 10 * 60_000, 4), sampleEvents(5, to + 5 * HOUR).slice(2)], { team: 'a' });
    // In-band metadata before its first event and in a batch of its own long after its last: neither
    // moves its start, end or duration (the events API leaves them out).
    const t0 = to + 2 * HOUR; // outside the window the other tests read
    metaEdges = await record([
      [{ type: 5, timestamp: t0 - 5_000, data: { tag: 'recording-meta', payload: { team: 'edge' } } }, ...events(t0, 5)],
      [{ type: 5, timestamp: to + 10 * HOUR, data: { tag: 'pageview-meta', payload: { page: '/later' } } }],
    ]);
    await record([events(to, 6)], { team: 'a' }); // first event at `to`: outside
    await record([events(from - 1, 6), sampleEvents(5, from + HOUR).slice(2)], { team: 'a' }); // starts before `from`: outside
    await pollUntil(
      () => api(`/recordings?metadata[run]=${run}&limit=100`, { key: secret() }),
      (r) => r.json().recordings.length === 8 && r.json().recordings.every((x: { eventCount: number }) => x.eventCount > 0),
      30_000,
    );
    await pollUntil(
      () => api(`/recordings/${inside.atFrom}`, { key: secret() }),
      (r) => r.json().metadata.team === 'x',
      30_000,
    );
  });

  it('equals counts computed from the raw events of the recordings whose first event is in [from, to)', async () => {
    const r = await stats(`from=${from}&to=${to}&interval=hour`);
    expect(r.status).toBe(200);
    const s = r.json();
    const raw = await Promise.all(Object.values(inside).map(readEvents));
    const types: Record<string, number> = {};
    for (const evs of raw) for (const e of evs) types[e.type] = (types[e.type] ?? 0) + 1;
    const durations = raw.map((evs) => Math.max(...evs.map((e) => e.timestamp)) - Math.min(...evs.map((e) => e.timestamp))).sort((x, y) => x - y);
    const total = durations.reduce((x, y) => x + y, 0);

    expect(s.from).toBe(from);
    expect(s.to).toBe(to);
    expect(s.interval).toBe('hour');
    expect(s.totals).toEqual({
      recordings: 5,
      events: raw.reduce((n, evs) => n + evs.length, 0),
      bytes: expect.any(Number),
      pageViews: types['2'],
      duration: { total, avg: Math.round(total / 5), p50: quantile(durations, 0.5), p90: quantile(durations, 0.9), p99: quantile(durations, 0.99) },
    });
    expect(s.eventTypes).toEqual(types);
    expect(s.eventTypes['5']).toBe(10); // the two note events of each recording; recording-meta is metadata, not an event
    expect(s.series).toEqual([
      { t: from, recordings: 3, events: raw[0].length + raw[1].length + raw[4].length },
      { t: from + HOUR, recordings: 1, events: raw[2].length },
      { t: from + 2 * HOUR, recordings: 1, events: raw[3].length },
    ]);
  });

  it('agrees with the listing: same recordings, sum of eventCount and bytes', async () => {
    const listed = (await api(`/recordings?metadata[run]=${run}&limit=100`, { key: secret() })).json().recordings as {
      recordingId: string;
      timestamp: number;
      eventCount: number;
      bytes: number;
      pageViews: number;
    }[];
    const inWindow = listed.filter((x) => x.timestamp >= from && x.timestamp < to);
    expect(inWindow.map((x) => x.recordingId).sort()).toEqual(Object.values(inside).sort());
    const s = (await stats(`from=${from}&to=${to}`)).json();
    expect(s.totals.events).toBe(inWindow.reduce((n, x) => n + x.eventCount, 0));
    expect(s.totals.bytes).toBe(inWindow.reduce((n, x) => n + x.bytes, 0));
    expect(s.totals.pageViews).toBe(inWindow.reduce((n, x) => n + x.pageViews, 0));
  });

  it("counts the window's recordings by the viewport the listing shows, most first, with the filters", async () => {
    const s = (await stats(`from=${from}&to=${to}`)).json();
    expect(s.viewports).toEqual([
      { width: 1024, height: 768, recordings: 3 },
      { width: 390, height: 844, recordings: 2 },
    ]);
    expect(s.viewportsTruncated).toBe(false);
    const listed = (await api(`/recordings?metadata[run]=${run}&limit=100`, { key: secret() })).json().recordings as {
      recordingId: string;
      viewport: { width: number; height: number } | null;
    }[];
    const ofB = listed.find((x) => x.recordingId === inside.b);
    expect(ofB?.viewport).toEqual(phone);
    expect((await stats(`from=${from}&to=${to}&metadata[team]=a`)).json().viewports).toEqual([{ width: 1024, height: 768, recordings: 2 }]);
    expect((await stats(`from=${to + 24 * HOUR}&to=${to + 25 * HOUR}`)).json().viewports).toEqual([]);
  });

  it('breaks down by the latest value of a metadata key, AND-combines filters, accepts ISO 8601', async () => {
    const iso = (t: number) => new Date(t).toISOString();
    const s = (await stats(`from=${iso(from)}&to=${iso(to)}&groupBy=team`)).json();
    const count = async (id: string) => (await readEvents(id)).length;
    expect(s.breakdown).toEqual({
      key: 'team',
      truncated: false,
      values: [
        { value: 'a', recordings: 2, events: (await count(inside.a)) + (await count(inside.long)) },
        { value: 'b', recordings: 1, events: await count(inside.b) },
        { value: 'x', recordings: 1, events: await count(inside.atFrom) },
        { value: null, recordings: 1, events: await count(inside.noTeam) },
      ],
    });
    const a = (await stats(`from=${from}&to=${to}&metadata[team]=a`)).json();
    expect(a.totals.recordings).toBe(2);
    expect(a.totals.events).toBe((await count(inside.a)) + (await count(inside.long)));
  });

  it('defaults to the last 7 days, hourly, with every bucket present', async () => {
    const s = (await stats('')).json();
    expect(s.interval).toBe('hour');
    expect(s.to - s.from).toBe(7 * 24 * HOUR);
    expect(s.series).toHaveLength(169);
    expect(s.series.reduce((n: number, b: { recordings: number }) => n + b.recordings, 0)).toBe(s.totals.recordings);
    expect(s.totals.recordings).toBe(8);
    expect(s.breakdown).toBeUndefined();
  });

  it('covers all time from=0 in calendar months', async () => {
    const r = await stats('from=0');
    expect(r.status).toBe(200);
    const s = r.json();
    expect(s.interval).toBe('month');
    expect(new Date(s.series.at(-1).t).toISOString()).toMatch(/-01T00:00:00.000Z$/);
    expect(s.series.reduce((n: number, b: { recordings: number }) => n + b.recordings, 0)).toBe(8);
    expect(s.totals.recordings).toBe(8);
  });

  it('times a recording by its events, not by its in-band metadata', async () => {
    const evs = await readEvents(metaEdges);
    const ts = evs.map((e) => e.timestamp);
    const listed = (
      await pollUntil(
        () => api(`/recordings/${metaEdges}`, { key: secret() }),
        (r) => r.json().metadata?.page === '/later',
        30_000,
      )
    ).json();
    expect(listed.metadata).toMatchObject({ team: 'edge', page: '/later' });
    expect([listed.timestamp, listed.duration]).toEqual([Math.min(...ts), Math.max(...ts) - Math.min(...ts)]);
  });

  it('answers zeros for an empty window', async () => {
    const s = (await stats(`from=${to + 24 * HOUR}&to=${to + 25 * HOUR}&interval=minute`)).json();
    expect(s.totals).toEqual({ recordings: 0, events: 0, bytes: 0, pageViews: 0, duration: { total: 0, avg: 0, p50: 0, p90: 0, p99: 0 } });
    expect(s.series).toHaveLength(60);
    expect(s.eventTypes).toEqual({});
  });

  it.each([
    [`from=${Date.now()}&to=${Date.now() - 1000}`, /from: must be before to/, 'json'],
    ['from=tomorrow', /from: must be epoch milliseconds or ISO 8601/, 'json'],
    ['interval=year', /interval: must be minute, hour, day, week or month/, 'json'],
    ['from=0&to=604800000&interval=minute', /10080 buckets/, 'json'],
    ['groupBy=', /groupBy/, 'json'],
    ['metadata[team]=a&meta[team]=b', /"path":"meta\[team\]","message":"metadata filter .*team.* is given more than once"/, 'json'],
    ['metadata.team=a', /"path":"metadata\.team","message":"not a metadata filter/, 'json'],
    [
      'since=2025-01-01&team=a',
      /"issues":\[\{"path":"since","message":"unknown parameter; this endpoint takes from, to, interval, groupBy, visitedUrl, [^"]*, maxActiveTime, metadata\[<key>\]=<value>"\},\{"path":"team"/,
      'json',
    ],
  ])('answers 400 for %s', async (query, message, kind) => {
    const r = await stats(query);
    expect(r.status).toBe(400);
    expect(r.text).toMatch(message);
    expect(r.headers.get('content-type')).toMatch(kind === 'json' ? /application\/json/ : /text\/plain/);
  });

  it('needs the private key', async () => {
    expect((await api('/statistics', { key: testEnv().publicKey })).status).toBe(401);
  });
});
