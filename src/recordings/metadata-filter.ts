// Metadata filters from a query string: metadata[<key>]=<value> (and rrweb Cloud's meta[<key>]=<value>),
// combined with AND; a recording matches when the latest written value of every key equals the
// given value. Fastify leaves such keys flat ("metadata[userId]"), so they are parsed here; a nested
// object (from a qs-style parser) is accepted too. Used by listing, statistics and replays. A
// parameter that starts like a filter but is not one (`metadata[plan=pro`, `metadata.plan`) is a
// validation error naming it: ignoring it would widen the result to every recording.
import { AppError } from '../common/app-error';
import { ValidationError } from '../common/validation';
import { MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH } from '../domain/batch-summary';

export interface MetadataFilter {
  key: string;
  value: string;
}

export const MAX_METADATA_FILTERS = 20;

const FILTER_PARAM = /^(?:metadata|meta)\[(.*)\]$/s;
const BARE_PARAM = /^(?:metadata|meta)$/;
/** metadata or meta followed by punctuation: meant as a filter (metadataX, meta_x are other parameters). */
const FILTER_LIKE_PARAM = /^(?:metadata|meta)[^A-Za-z0-9_-]/s;

const bad = (message: string) => new AppError('bad_request', message);
const shown = (key: string) => JSON.stringify(key.length > 50 ? key.slice(0, 50) + '…' : key);

function malformed(name: string): ValidationError {
  const message = `not a metadata filter; use ${name.startsWith('metadata') ? 'metadata' : 'meta'}[<key>]=<value>`;
  return new ValidationError(`Invalid query: ${shown(name)}: ${message}`, [{ path: name, message }]);
}

export function parseMetadataFilters(query: Record<string, unknown>): MetadataFilter[] {
  const seen = new Map<string, string>();
  const add = (key: string, raw: unknown) => {
    if (key.length === 0) throw bad('Metadata filter key is empty: use metadata[<key>]=<value>');
    if (key.length > MAX_META_KEY_LENGTH) throw bad(`Metadata filter keys must be 1-${MAX_META_KEY_LENGTH} characters`);
    if (Array.isArray(raw) || seen.has(key)) throw bad(`Metadata filter ${shown(key)} is given more than once`);
    if (typeof raw !== 'string') throw bad(`Metadata filter ${shown(key)} needs a single string value`);
    if (raw.length > MAX_META_VALUE_LENGTH) throw bad(`Metadata filter values must be at most ${MAX_META_VALUE_LENGTH} characters`);
    if (!key.isWellFormed() || !raw.isWellFormed()) throw bad('Metadata filters must be valid Unicode');
    seen.set(key, raw);
  };
  for (const [name, raw] of Object.entries(query)) {
    const m = FILTER_PARAM.exec(name);
    if (m) add(m[1], raw);
    else if (BARE_PARAM.test(name)) {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(`Use ${name}[<key>]=<value> to filter by metadata`);
      for (const [key, value] of Object.entries(raw as Record<string, unknown>)) add(key, value);
    } else if (FILTER_LIKE_PARAM.test(name)) throw malformed(name);
  }
  if (seen.size > MAX_METADATA_FILTERS) throw bad(`At most ${MAX_METADATA_FILTERS} metadata filters per request`);
  return [...seen].map(([key, value]) => ({ key, value }));
}
