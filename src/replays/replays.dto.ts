// The replays API's contract: a replay group in the path, the listing's query, and the answers. The
// composed replays are streamed (replays.service.ts); their shape is documented here.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { epochMs, SIGNED_QUERY_EXAMPLE as SIGNED, signedLinksExpiry } from '../common/openapi/openapi-schema';
import { pageFields, paginationQuery } from '../common/pagination.dto';
import { queryBoolean } from '../common/validation';
import { EventSchema } from '../domain/recording.dto';
import { listingQuery } from '../read-model/listing-query';
import { EventWindowQuerySchema } from '../recordings/event-window.dto';

const length = (min: number, max: number) =>
  z
    .string()
    .min(min, { message: `must be ${min}-${max} characters` })
    .max(max, { message: `must be ${min}-${max} characters` });
const groupingProp = length(1, 100).describe('A metadata key');

export class GroupingPropParams extends createZodDto(z.object({ groupingProp })) {}
/** The path of one replay, checked in this order. */
export class ReplayGroupParams extends createZodDto(
  z.object({ groupingProp, replayValue: length(1, 500).describe('Its value (percent-encoded in the path)') }),
) {}

export class ListReplaysQuery extends createZodDto(
  listingQuery(
    {
      ...paginationQuery('Replays'),
      includeSignedUrls: queryBoolean(false).describe(
        'true adds links.selfSigned, links.eventsSigned and signedUrlsExpireAt (UNIX seconds, on each item and on the response); 400 if the tenant has no signing key, or if groupingProp contains "/" (links cannot open such replays)',
      ),
    },
    { filters: false },
  ),
) {}

/** Compose replay's query: metadata filters only (read by parseMetadataFilters). Not a DTO: OpenAPI has no shape for a query of no fixed parameters. */
export const ComposeReplayQuery = listingQuery(EventWindowQuerySchema.shape, { filters: true });

const signedUrlsExpireAt = signedLinksExpiry('With includeSignedUrls=true: expiry of the signed links, UNIX seconds');

export class Replay extends createZodDto(z.object({ metadata: z.record(z.string(), z.string()), events: z.array(EventSchema) })) {}

const ReplayListItemSchema = z.object({
  groupingProp: z.string().meta({ example: 'sessionId' }),
  replayValue: z.string().meta({ example: 'S1' }),
  recordings: z.int().min(1).describe('Recordings in the group').meta({ example: 3 }),
  startedAt: epochMs('First stored event, epoch ms').meta({ example: 1700000000000 }),
  endedAt: epochMs('Last stored event, epoch ms').meta({ example: 1700000060000 }),
  duration: z.int().min(0).describe('endedAt - startedAt, ms').meta({ example: 60000 }),
  links: z.object({
    self: z.string().meta({ example: '/replays/sessionId/S1' }),
    events: z.string().meta({ example: '/replays/sessionId/S1/events' }),
    selfSigned: z
      .string()
      .optional()
      .meta({ example: `/replays/sessionId/S1?${SIGNED}` }),
    eventsSigned: z
      .string()
      .optional()
      .meta({ example: `/replays/sessionId/S1/events?${SIGNED}` }),
  }),
  signedUrlsExpireAt,
});

export class ReplayList extends createZodDto(
  z.object({
    replays: z.array(ReplayListItemSchema),
    ...pageFields('At least one more replay follows this page (continue with offset + limit)'),
    signedUrlsExpireAt,
  }),
) {}

export type ReplayListItem = z.output<typeof ReplayListItemSchema>;
