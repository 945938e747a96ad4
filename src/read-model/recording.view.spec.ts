import { recordingLinks } from '../recordings/recording-links';
import { metadataById, toRecordingView, toSummary } from './recording.view';

describe('recording views', () => {
  it('converts 64-bit strings and derives duration, viewport and URL', () => {
    const s = toSummary({
      recording_id: 'r',
      started_at: '1700000000000',
      ended_at: '1700000061000',
      event_count: '420',
      bytes: '183422',
      page_views: '2',
      has_viewport: 1,
      viewport: [1280, 720],
      first_url: 'https://e.test/',
      last_activity_at: '1700000062000',
    });
    expect(s).toEqual({
      startedAt: 1700000000000,
      endedAt: 1700000061000,
      duration: 61000,
      eventCount: 420,
      bytes: 183422,
      pageViews: 2,
      viewport: { width: 1280, height: 720 },
      firstUrl: 'https://e.test/',
      lastActivityAt: 1700000062000,
    });
  });

  it('gives null viewport and URL without a Meta event, and an empty summary without rows', () => {
    const s = toSummary({
      recording_id: 'r',
      started_at: 5,
      ended_at: 9,
      event_count: 1,
      bytes: 1,
      page_views: 0,
      has_viewport: 0,
      viewport: [0, 0],
      first_url: '',
      last_activity_at: 0,
    });
    expect(s.viewport).toBeNull();
    expect(s.firstUrl).toBeNull();
    expect(toSummary(undefined)).toMatchObject({ startedAt: null, eventCount: 0, viewport: null });
  });

  it('keeps every metadata key as an own property, __proto__ included', () => {
    const m = metadataById([
      { recording_id: 'r', key: '__proto__', value: 'x' },
      { recording_id: 'r', key: 'constructor', value: 'y' },
    ]).get('r')!;
    expect(Object.keys(m)).toEqual(['__proto__', 'constructor']);
    expect(JSON.parse(JSON.stringify(toRecordingView('r', 5, recordingLinks('r'), m, toSummary(undefined), 0))).metadata).toEqual(
      JSON.parse('{"__proto__":"x","constructor":"y"}'),
    );
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});
