// Query parameters of GET /recordings and GET /recordings/{id}, validated with zod (400 JSON with
// the failing field). Metadata filters are parsed from the same raw query (read-model/metadata-filter.ts).
import { z } from 'zod';
import { parseWith, queryBoolean, queryInt } from '../common/validation';
import { MetadataFilter, parseMetadataFilters } from '../read-model/metadata-filter';

export const LIST_LIMIT = { min: 1, max: 100, default: 50 } as const;
export const MAX_OFFSET = 1_000_000_000;

const listSchema = z.object({
  limit: queryInt(LIST_LIMIT.min, LIST_LIMIT.max, LIST_LIMIT.default),
  offset: queryInt(0, MAX_OFFSET, 0),
  includeSignedUrls: queryBoolean(false),
});

const detailSchema = z.object({ includeSignedUrls: queryBoolean(false) });

export interface ListParams {
  limit: number;
  offset: number;
  includeSignedUrls: boolean;
  filters: MetadataFilter[];
}

export const RecordingsQueryParams = {
  list(query: Record<string, unknown>): ListParams {
    const p = parseWith(listSchema, { limit: query.limit, offset: query.offset, includeSignedUrls: query.includeSignedUrls }, 'query');
    return { limit: p.limit!, offset: p.offset!, includeSignedUrls: p.includeSignedUrls, filters: parseMetadataFilters(query) };
  },

  detail(query: Record<string, unknown>): { includeSignedUrls: boolean } {
    return parseWith(detailSchema, { includeSignedUrls: query.includeSignedUrls }, 'query');
  },
};
