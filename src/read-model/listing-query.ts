// The query of a listing (recordings, replays, statistics): its own parameters, the metadata filters
// where it takes them, and the credentials authentication reads; any other parameter is refused (400
// JSON naming it, like every query error). Ignored, a misspelt or invented filter (`firstUrl=…`)
// answered every recording as if it had filtered them.
import { z } from 'zod';
import { PRESIGN_PARAMS } from '../auth/link-verifier';
import { isFilterParam } from './metadata-filter';

/** Read by the Authenticator on every route: a presigned link's parameters and ingestion's `?token=`, refused or ignored there. */
const CREDENTIAL_PARAMS: readonly string[] = [...PRESIGN_PARAMS, 'token'];

export function listingQuery<Shape extends z.ZodRawShape>(shape: Shape, o: { filters: boolean }) {
  const own = Object.keys(shape);
  const known = new Set([...own, ...CREDENTIAL_PARAMS]);
  const takes = [...own, ...(o.filters ? ['metadata[<key>]=<value>'] : [])];
  const message = takes.length ? `unknown parameter; this endpoint takes ${takes.join(', ')}` : 'unknown parameter; this endpoint takes none';
  // Loose: the filters are read from the other parameters after the schema (parseMetadataFilters).
  return z
    .object(shape)
    .loose()
    .superRefine((query, ctx) => {
      for (const name of Object.keys(query)) {
        if (!known.has(name) && !(o.filters && isFilterParam(name))) ctx.addIssue({ code: 'custom', path: [name], message, input: query[name] });
      }
    });
}
