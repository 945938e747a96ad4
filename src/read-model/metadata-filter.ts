// Metadata filters from a query string: metadata[<key>]=<value> (and rrweb Cloud's meta[<key>]=<value>),
// combined with AND; a recording matches when the latest written value of every key equals the
// given value. Fastify leaves such keys flat ("metadata[userId]"), so they are parsed here; a nested
// object (from a qs-style parser) is accepted too. Used by listing, statistics and replays. A
// parameter that starts like a filter but is not one (`metadata[plan=pro`, `metadata.plan`) is a
// validation error naming it: ignoring it would widen the result to every recording.
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

/** Whether parseMetadataFilters reads the parameter (as a filter, or to refuse it as a malformed one). */
export const isFilterParam = (name: string) => FILTER_PARAM.test(name) || BARE_PARAM.test(name) || FILTER_LIKE_PARAM.test(name);

const shown = (key: string) => JSON.stringify(key.length > 50 ? key.slice(0, 50) + '…' : key);

/** A 400 naming the query parameter, in the same JSON form as every other query validation error. */
function invalid(param: string, message: string): ValidationError {
  return new ValidationError(`Invalid query: ${shown(param)}: ${message}`, [{ path: param, message }]);
}

const suggestion = (name: string) => `${name.startsWith('metadata') ? 'metadata' : 'meta'}[<key>]=<value>`;

export function parseMetadataFilters(query: Record<string, unknown>): MetadataFilter[] {
  const seen = new Map<string, string>();
  const add = (param: string, key: string, raw: unknown) => {
    if (key.length === 0) throw invalid(param, `the metadata key is empty; use ${suggestion(param)}`);
    if (key.length > MAX_META_KEY_LENGTH) throw invalid(param, `metadata filter keys must be 1-${MAX_META_KEY_LENGTH} characters`);
    if (Array.isArray(raw) || seen.has(key)) throw invalid(param, `metadata filter ${shown(key)} is given more than once`);
    if (typeof raw !== 'string') throw invalid(param, `metadata filter ${shown(key)} needs a single string value`);
    if (raw.length > MAX_META_VALUE_LENGTH) throw invalid(param, `metadata filter values must be at most ${MAX_META_VALUE_LENGTH} characters`);
    if (!key.isWellFormed() || !raw.isWellFormed()) throw invalid(param, 'metadata filters must be valid Unicode');
    seen.set(key, raw);
  };
  for (const [name, raw] of Object.entries(query)) {
    const m = FILTER_PARAM.exec(name);
    if (m) add(name, m[1], raw);
    else if (BARE_PARAM.test(name)) {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(name, `not a metadata filter; use ${suggestion(name)}`);
      for (const [key, value] of Object.entries(raw as Record<string, unknown>)) add(`${name}[${key}]`, key, value);
    } else if (FILTER_LIKE_PARAM.test(name)) throw invalid(name, `not a metadata filter; use ${suggestion(name)}`);
  }
  if (seen.size > MAX_METADATA_FILTERS) throw invalid('metadata', `at most ${MAX_METADATA_FILTERS} metadata filters per request`);
  return [...seen].map(([key, value]) => ({ key, value }));
}
