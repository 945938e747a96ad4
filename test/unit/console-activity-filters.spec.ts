// The console's activity filters: the API's own parameter names, and a console URL's filters read
// into the form and written back unchanged (seconds in the form, milliseconds in the URL).
import { ACTIVITY_PARAMS, activityForm, setActivityParams } from '../../src/console/web/activity-filters';
import { recordingsOf } from '../../src/console/web/statistics-links';
import { activityFilterQuery } from '../../src/read-model/activity-filter.dto';

const roundTrip = (query: string) => {
  const out = new URLSearchParams();
  setActivityParams(out, activityForm(new URLSearchParams(query)));
  return out.toString();
};

describe('console activity filters', () => {
  it('are exactly the API listing and statistics parameters (duration: the recordings form has its own fields)', () => {
    expect([...ACTIVITY_PARAMS, 'minDuration', 'maxDuration'].sort()).toEqual(Object.keys(activityFilterQuery).sort());
  });

  it('round-trip every filter through the form', () => {
    for (const q of [
      'visitedPath=%2Fcheckout&clickedText=Pay+now&hasErrors=true&errorText=boom&hasRageClicks=false&hasDeadClicks=true&minActiveTime=1500&maxActiveTime=60000',
      'visitedUrlPrefix=https%3A%2F%2Fshop.example%2F',
      'visitedPathContains=cart&hasErrors=false',
      '',
    ]) {
      expect(roundTrip(q)).toBe(q);
    }
  });

  it('reads the form in seconds and the yes/no filters as the API spells them', () => {
    const f = activityForm(new URLSearchParams('minActiveTime=1500&hasRageClicks=1&hasDeadClicks=0&hasErrors=maybe'));
    expect(f).toMatchObject({ minActive: '1.5', maxActive: '', rage: 'true', dead: 'false', errors: '', visitedHow: 'visitedUrlContains', visited: '' });
    expect(roundTrip('hasRageClicks=1&hasDeadClicks=0')).toBe('hasRageClicks=true&hasDeadClicks=false');
  });

  it('sends trimmed text and leaves out empty fields', () => {
    const q = new URLSearchParams();
    setActivityParams(q, { ...activityForm(new URLSearchParams()), visitedHow: 'visitedPath', visited: '  /cart ', clickedText: '   ', errorText: ' x ' });
    expect(q.toString()).toBe('visitedPath=%2Fcart&errorText=x');
  });
});

describe('statistics to recordings links', () => {
  const stats = { from: Date.UTC(2026, 10, 28), to: Date.UTC(2026, 10, 29, 12) };
  const query = (href: string | undefined) => [...new URLSearchParams(href!.split('?')[1]).entries()];

  it('carry the window as the start range and the metadata and activity filters, not the bucket size', () => {
    const q = new URLSearchParams('from=2026-11-28&interval=hour&metadata%5Bplan%5D=pro&hasRageClicks=true&visitedPathPrefix=%2Fshop');
    expect(query(recordingsOf(stats, q))).toEqual([
      ['metadata[plan]', 'pro'],
      ['hasRageClicks', 'true'],
      ['visitedPathPrefix', '/shop'],
      ['startedAfter', '2026-11-28T00:00:00.000Z'],
      ['startedBefore', '2026-11-29T12:00:00.000Z'],
    ]);
  });

  it('add a filter, unless the view already has that parameter (the API refuses it twice)', () => {
    expect(query(recordingsOf(stats, new URLSearchParams('hasRageClicks=true'), { visitedPath: '/cart' }))).toContainEqual(['visitedPath', '/cart']);
    expect(recordingsOf(stats, new URLSearchParams('hasErrors=false'), { hasErrors: 'true' })).toBeUndefined();
    expect(recordingsOf(stats, new URLSearchParams('visitedPath=%2Fa'), { visitedPath: '/b' })).toBeUndefined();
  });
});
