// The console's started after / before inputs: datetime-local (local time) to and from the API's times.
import { isoToLocal, localToIso } from '../../src/console/web/datetime-local';

describe('datetime-local and the API times', () => {
  it('round-trips a time through the input, in whatever zone the viewer is', () => {
    for (const t of [Date.UTC(2026, 10, 28, 9, 30, 15), Date.UTC(2026, 0, 1), Date.UTC(2026, 6, 1, 23, 59)]) {
      const local = isoToLocal(new Date(t).toISOString());
      expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/);
      expect(localToIso(local)).toBe(new Date(t).toISOString());
      expect(isoToLocal(String(t))).toBe(local);
    }
  });

  it('sends ISO 8601 with a zone, and nothing for an empty or bad value', () => {
    expect(localToIso('2026-11-28T09:30')).toMatch(/^2026-11-2\dT\d{2}:\d{2}:00\.000Z$/);
    expect(localToIso('')).toBe('');
    expect(localToIso('not a time')).toBe('');
    expect(isoToLocal(null)).toBe('');
    expect(isoToLocal('yesterday')).toBe('');
  });
});
