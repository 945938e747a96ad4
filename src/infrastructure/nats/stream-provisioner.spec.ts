import { nanos } from 'nats';
import { loadConfig } from '../../config/config';
import { archiveMaxAgeMs, eventStreamConfig } from './stream-provisioner';

const DAY = 86_400_000;

describe('stream and archive bucket age limits', () => {
  it('takes the stream limit from the days, or from the tests seconds instead', () => {
    expect(eventStreamConfig(loadConfig({})).max_age).toBe(0);
    expect(eventStreamConfig(loadConfig({ STREAM_MAX_AGE_DAYS: '30' })).max_age).toBe(nanos(30 * DAY));
    expect(eventStreamConfig(loadConfig({ STREAM_MAX_AGE_DAYS: '30', STREAM_MAX_AGE_SECONDS: '20' })).max_age).toBe(nanos(20_000));
  });

  it('keeps archives twice the stream limit, at least a day longer, and forever with none', () => {
    expect(archiveMaxAgeMs({ STREAM_MAX_AGE_DAYS: 0, STREAM_MAX_AGE_SECONDS: 0 })).toBe(0);
    expect(archiveMaxAgeMs({ STREAM_MAX_AGE_DAYS: 30, STREAM_MAX_AGE_SECONDS: 0 })).toBe(60 * DAY);
    expect(archiveMaxAgeMs({ STREAM_MAX_AGE_DAYS: 0, STREAM_MAX_AGE_SECONDS: 30 })).toBe(30_000 + DAY);
  });
});
