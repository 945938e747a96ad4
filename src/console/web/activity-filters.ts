// The activity filters of GET /recordings and GET /statistics (docs/activity.md), as the console's
// forms offer them: one visited-page filter (how it matches, and the text), clicked text, errors
// (with or without, and message text), rage and dead clicks (some or none), active time bounds.
// The forms keep the API's own parameter names in the console's URL.

/** The API's visited-page parameters, as the form's choice of how a page matches. */
export const VISITED = [
  ['visitedUrlContains', 'URL contains'],
  ['visitedUrl', 'URL is'],
  ['visitedUrlPrefix', 'URL starts with'],
  ['visitedPath', 'path is'],
  ['visitedPathPrefix', 'path starts with'],
  ['visitedPathContains', 'path contains'],
] as const;
export type VisitedParam = (typeof VISITED)[number][0];

/** Every activity filter parameter: the console passes them from its URL to the API as they are. */
export const ACTIVITY_PARAMS = [
  ...VISITED.map(([p]) => p),
  'clickedText',
  'hasErrors',
  'errorText',
  'hasRageClicks',
  'hasDeadClicks',
  'minActiveTime',
  'maxActiveTime',
] as const;

/** A yes/no filter: '' (either), 'true' (some) or 'false' (none). */
export type Tri = '' | 'true' | 'false';

export interface ActivityForm {
  visitedHow: VisitedParam;
  visited: string;
  clickedText: string;
  errors: Tri;
  errorText: string;
  rage: Tri;
  dead: Tri;
  /** Active time bounds, seconds (as typed). */
  minActive: string;
  maxActive: string;
}

const tri = (v: string | null): Tri => (v === 'true' || v === '1' ? 'true' : v === 'false' || v === '0' ? 'false' : '');
const seconds = (v: string | null) => (v ? String(Number(v) / 1000) : '');

/** The form's values from a console URL's query (the first visited-page filter it holds). */
export function activityForm(q: URLSearchParams): ActivityForm {
  const visited = VISITED.find(([p]) => q.get(p));
  return {
    visitedHow: visited?.[0] ?? 'visitedUrlContains',
    visited: visited ? q.get(visited[0])! : '',
    clickedText: q.get('clickedText') ?? '',
    errors: tri(q.get('hasErrors')),
    errorText: q.get('errorText') ?? '',
    rage: tri(q.get('hasRageClicks')),
    dead: tri(q.get('hasDeadClicks')),
    minActive: seconds(q.get('minActiveTime')),
    maxActive: seconds(q.get('maxActiveTime')),
  };
}

/** Sets the form's filters on `q` with the API's names (text trimmed, seconds sent as ms, empty ones left out). */
export function setActivityParams(q: URLSearchParams, f: ActivityForm): void {
  const text = (name: string, v: string) => v.trim() && q.set(name, v.trim());
  text(f.visitedHow, f.visited);
  text('clickedText', f.clickedText);
  if (f.errors) q.set('hasErrors', f.errors);
  text('errorText', f.errorText);
  if (f.rage) q.set('hasRageClicks', f.rage);
  if (f.dead) q.set('hasDeadClicks', f.dead);
  if (f.minActive) q.set('minActiveTime', String(Math.round(Number(f.minActive) * 1000)));
  if (f.maxActive) q.set('maxActiveTime', String(Math.round(Number(f.maxActive) * 1000)));
}
