// The listing's query (recordings.dto.ts) as the service takes it, with the metadata filters read
// from its other parameters (read-model/metadata-filter.ts).
import { activityFilters } from '../read-model/activity-filter.dto';
import { ActivityFilters, hasActivityFilters } from '../read-model/activity.sql';
import { MetadataFilter, parseMetadataFilters } from '../read-model/metadata-filter';
import type { StartedRange } from '../read-model/listing-page.util';
import type { ListRecordingsQuery } from './recordings.dto';

export interface ListParams {
  limit: number;
  offset: number;
  includeSignedUrls: boolean;
  /** Only live (true) or only finished (false) recordings; all when absent. */
  live?: boolean;
  filters: MetadataFilter[];
  /** Activity filters (docs/activity.md#search), combined with the metadata filters (AND). */
  activity?: ActivityFilters;
  /** Only recordings whose first event time is in [from, to), epoch ms (either end open when absent). */
  started?: StartedRange;
}

export function listParams(query: ListRecordingsQuery): ListParams {
  const activity = activityFilters(query);
  return {
    limit: query.limit,
    offset: query.offset,
    includeSignedUrls: query.includeSignedUrls,
    live: query.live,
    filters: parseMetadataFilters(query),
    ...(hasActivityFilters(activity) ? { activity } : {}),
    ...(query.startedAfter !== undefined || query.startedBefore !== undefined ? { started: { from: query.startedAfter, to: query.startedBefore } } : {}),
  };
}
