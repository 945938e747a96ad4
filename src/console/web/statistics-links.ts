// Links from the statistics page to the recordings it counts.
import { ACTIVITY_PARAMS } from './activity-filters';

/**
 * The recordings page listing what these statistics count: the same start window ([from, to), as
 * startedAfter/startedBefore) and the same metadata and activity filters, plus `extra` filters
 * (none already given: the API refuses a repeated parameter).
 */
export function recordingsOf(stats: { from: number; to: number }, q: URLSearchParams, extra: Record<string, string> = {}): string | undefined {
  if (Object.keys(extra).some((k) => q.has(k))) return undefined;
  const r = new URLSearchParams();
  q.forEach((v, k) => (/^metadata\[.+\]$/.test(k) || (ACTIVITY_PARAMS as readonly string[]).includes(k)) && r.append(k, v));
  r.set('startedAfter', new Date(stats.from).toISOString());
  r.set('startedBefore', new Date(stats.to).toISOString());
  for (const [k, v] of Object.entries(extra)) r.set(k, v);
  return `/console/recordings?${r}`;
}
