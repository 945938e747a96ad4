// A `datetime-local` input's value (the viewer's local time, no zone) to and from the API's times
// (ISO 8601 with a zone, or epoch milliseconds), for the listing's startedAfter/startedBefore.

/** The input's value as ISO 8601 in UTC (`…Z`); '' when empty or not a time. */
export function localToIso(value: string): string {
  if (!value) return '';
  const t = new Date(value).getTime(); // no zone: read as local time
  return Number.isFinite(t) ? new Date(t).toISOString() : '';
}

/** An API time (ISO 8601 with a zone or epoch ms) as the input's value in local time; '' when not a time. */
export function isoToLocal(param: string | null): string {
  if (!param) return '';
  const t = /^\d+$/.test(param) ? Number(param) : Date.parse(param);
  if (!Number.isFinite(t)) return '';
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  const seconds = d.getSeconds() ? `:${p(d.getSeconds())}` : '';
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}${seconds}`;
}
