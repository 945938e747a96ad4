import { resumeUrl, retryAfterMs } from './live-feed';

describe('resumeUrl', () => {
  it.each([
    ['events?tenantId=a&signature=s&live=true', '42', 'events?tenantId=a&signature=s&live=true&lastEventId=42'],
    ['events?live=true&lastEventId=7', '42', 'events?live=true&lastEventId=42'],
    ['events?live=true&lastEventId=7', undefined, 'events?live=true'],
    ['/recordings/x/events', '1', '/recordings/x/events?lastEventId=1'],
  ])('%s from %p → %s', (url, id, expected) => {
    expect(resumeUrl(url, id)).toBe(expected);
  });
});

describe('retryAfterMs', () => {
  it.each([
    ['10', 10_000],
    [' 3 ', 3000],
    ['0', 1000],
    ['3600', 60_000],
    [null, 5000],
    ['Wed, 21 Oct 2026 07:28:00 GMT', 5000],
  ])('Retry-After %p → %p ms', (header, ms) => {
    expect(retryAfterMs(header)).toBe(ms);
  });
});
