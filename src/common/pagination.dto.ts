// Offset pagination of the listings (recordings, replays): the limit and offset a request may give,
// validated and documented by the same schemas, and the page fields of the answer.
import { z } from 'zod';
import { queryInt } from './validation';

export const LIST_LIMIT = { min: 1, max: 100, default: 50 } as const;
export const MAX_OFFSET = 1_000_000_000;

export const paginationQuery = (items: string) => ({
  limit: queryInt(LIST_LIMIT.min, LIST_LIMIT.max, LIST_LIMIT.default).describe(
    `${items} per page, ${LIST_LIMIT.min}-${LIST_LIMIT.max}, default ${LIST_LIMIT.default}`,
  ),
  offset: queryInt(0, MAX_OFFSET, 0).describe(`${items} to skip, default 0`),
});

/** `hasMore`: at least one more item follows this page (described per listing). */
export const pageFields = (hasMore: string) => ({
  limit: z.int().min(LIST_LIMIT.min).max(LIST_LIMIT.max).meta({ example: LIST_LIMIT.default }),
  offset: z.int().min(0).meta({ example: 0 }),
  hasMore: z.boolean().describe(hasMore),
});
