import { HeadingRecording, humanDuration, playerHeading, shortUrl } from './player-heading';

const id = '0b5e8a2c-1111-4222-8333-444455556666';
const recording: HeadingRecording = {
  firstUrl: 'https://example.com/pricing?utm=x#top',
  startedAt: Date.UTC(2026, 10, 28, 3, 11, 5),
  duration: 3_725_000,
  pageViews: 1,
  metadata: { userId: 'u-1', plan: 'pro' },
};

describe('playerHeading', () => {
  it('titles a recording by its first page and start; details: duration, metadata by key, id', () => {
    expect(playerHeading(id, undefined, recording)).toEqual({
      title: 'example.com/pricing · 2026-11-28 03:11:05 UTC',
      details: ['1 h 2 min', 'plan: pro', 'userId: u-1', `id ${id}`],
    });
  });

  it('says "live view" instead of the duration on a live page (the recording goes on while it is open)', () => {
    expect(playerHeading(id, undefined, recording, true).details).toEqual(['live view', 'plan: pro', 'userId: u-1', `id ${id}`]);
  });

  it('titles by id before the projection has the recording, or without a first URL', () => {
    expect(playerHeading(id)).toEqual({ title: `Recording ${id}`, details: [] });
    expect(playerHeading(id, undefined, { ...recording, startedAt: null })).toEqual({ title: `Recording ${id}`, details: [] });
    expect(playerHeading(id, undefined, { ...recording, firstUrl: null }).title).toBe(`Recording ${id} · 2026-11-28 03:11:05 UTC`);
  });

  it('shows at most eight metadata entries, shortened, and never an API key', () => {
    const metadata = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i === 0 ? `secret_key_svc_${'a'.repeat(20)} ${'v'.repeat(80)}` : 'v']));
    const { details } = playerHeading(id, undefined, { ...recording, metadata });
    expect(details.filter((d) => /^k\d/.test(d))).toHaveLength(8);
    expect(details).toContain('+2 more');
    expect(details[1]).toMatch(/^k0: \[key\] v+…$/);
    expect(details[1]).toHaveLength('k0: '.length + 60);
  });

  it.each([
    ['/replays/sessionId/abc%20def/events?signature=ab', 'Replay of sessionId = abc def'],
    ['../../replays/user/u%2F1?x=1', 'Replay of user = u/1'],
    ['/replay?meta[a]=b', 'Replay'],
    ['/recordings/0b5e8a2c-9999-4222-8333-444455556666/events', 'Recording 0b5e8a2c-9999-4222-8333-444455556666'],
  ])('titles what eventsUrl %s plays instead: %s', (eventsUrl, title) => {
    expect(playerHeading(id, eventsUrl, recording)).toEqual({ title, details: [] });
  });

  it("titles the recording when eventsUrl is its own events (a presigned link's)", () => {
    expect(playerHeading(id, 'events?tenantId=t&expires=1&keyId=k&signature=ab', recording).title).toMatch(/^example\.com\/pricing/);
    expect(playerHeading(id, `/recordings/${id.toUpperCase()}/events`, recording).title).toMatch(/^example\.com\/pricing/);
  });
});

describe('shortUrl', () => {
  it.each([
    ['https://example.com/', 'example.com'],
    ['http://localhost:8080/a/b%20c?token=x', 'localhost:8080/a/b c'],
    ['file:///home/u/page.html', 'file:/home/u/page.html'],
    ['not a url?x=1', 'not a url'],
    [`https://example.com/${'p'.repeat(300)}`, `example.com/${'p'.repeat(107)}…`],
  ])('%s → %s', (href, short) => {
    expect(shortUrl(href)).toBe(short);
  });
});

describe('humanDuration', () => {
  it.each([
    [0, '0 s'],
    [59_400, '59 s'],
    [65_000, '1 min 5 s'],
    [7_260_000, '2 h 1 min'],
  ])('%d ms → %s', (ms, s) => {
    expect(humanDuration(ms)).toBe(s);
  });
});
