// The listing's query (recordings.dto.ts) as the service takes it, with the metadata filters read
// from its other parameters (read-model/metadata-filter.ts).
import { MetadataFilter, parseMetadataFilters } from '../read-model/metadata-filter';
import type { ListRecordingsQuery } from './recordings.dto';

export interface ListParams {
  limit: number;
  offset: number;
  includeSignedUrls: boolean;
  /** Only live (true) or only finished (false) recordings; all when absent. */
  live?: boolean;
  filters: MetadataFilter[];
}

export const listParams = (query: ListRecordingsQuery): ListParams => ({
  limit: query.limit,
  offset: query.offset,
  includeSignedUrls: query.includeSignedUrls,
  live: query.live,
  filters: parseMetadataFilters(query),
});
