// The recordings API's contract: the listing and detail queries, and the recording as both answer it.
// The read model builds the recording (recordings-query.view.ts); RecordingIsDocumented keeps the two
// the same type.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import type { Assert, SameShape } from '../common/openapi/same-shape';
import { epochMs, nullableString, SIGNED_QUERY_EXAMPLE as SIGNED, signedLinksExpiry } from '../common/openapi/openapi-schema';
import { pageFields, paginationQuery } from '../common/pagination.dto';
import { timeQueryParam } from '../common/time-query';
import { QUERY_BOOLEAN_WORDS, queryBoolean } from '../common/validation';
import { recordingId } from '../domain/recording.dto';
import { activityFilterQuery, checkActivityBounds } from '../read-model/activity-filter.dto';
import { listingQuery } from '../read-model/listing-query';
import type { RecordingView } from '../read-model/recording.view';
import type { RecordingLinks } from './recording-links';

const ID = '550e8400-e29b-41d4-a716-446655440000';
const link = (example: string) => z.string().meta({ example });

const includeSignedUrls = queryBoolean(false).describe(
  "Default false. true adds links.selfSigned, eventsSigned, playerSigned, screenshotSigned and thumbnailSigned (presigned with the tenant's current signing key, valid PRESIGN_DEFAULT_TTL_SECONDS) and signedUrlsExpireAt. 400 if the tenant has no signing key.",
);

const live = QUERY_BOOLEAN_WORDS.transform((v) => v === 'true' || v === '1')
  .optional()
  .describe(
    'true: only live recordings (a batch stored within LIVE_IDLE_SECONDS, default 60, by the server clock); false: only the others. Absent: all. Combines with the metadata filters and pagination.',
  );

// The range of start times [startedAfter, startedBefore): a recording's startedAt (first event time).
const startedRange = {
  startedAfter: timeQueryParam(
    'Only recordings whose startedAt (first event time) is at or after this time (inclusive). Combines with every other filter.',
    '2024-12-25T00:00:00Z',
  ),
  startedBefore: timeQueryParam(
    'Only recordings whose startedAt (first event time) is before this time (exclusive). Must be after startedAfter when both are given (else 400).',
    '2024-12-26T00:00:00+01:00',
  ),
};

function checkStartedRange(q: { startedAfter?: number; startedBefore?: number }, ctx: z.RefinementCtx): void {
  if (q.startedAfter !== undefined && q.startedBefore !== undefined && q.startedAfter >= q.startedBefore)
    ctx.addIssue({ code: 'custom', path: ['startedAfter'], message: 'startedAfter must be before startedBefore', input: q.startedAfter });
}

/** The listing's query; the metadata filters among its other parameters are read by parseMetadataFilters. */
export class ListRecordingsQuery extends createZodDto(
  listingQuery({ ...paginationQuery('Recordings'), includeSignedUrls, live, ...startedRange, ...activityFilterQuery }, { filters: true })
    .superRefine(checkActivityBounds)
    .superRefine(checkStartedRange),
) {}
export class RecordingQuery extends createZodDto(z.object({ includeSignedUrls })) {}

const signedUrlsExpireAt = signedLinksExpiry("With includeSignedUrls=true: expiry of every signed link in the response, UNIX seconds (the links' expires)");

const RecordingSchema = z
  .object({
    recordingId: recordingId(),
    timestamp: epochMs(
      "First event time, epoch ms (as rrweb Cloud's timestamp); equals startedAt. Null only for a recording not projected yet (detail).",
    ).nullable(),
    links: z
      .object({
        self: link(`/recordings/${ID}`),
        events: link(`/recordings/${ID}/events`),
        player: link(`/recordings/${ID}/player.html`),
        screenshot: link(`/recordings/${ID}/screenshot.png`),
        thumbnail: link(`/recordings/${ID}/thumbnail`).describe('Poster thumbnail (WebP, 320 px wide), rendered in the background: 404 until it exists'),
        selfSigned: link(`/recordings/${ID}?${SIGNED}`).optional(),
        eventsSigned: link(`/recordings/${ID}/events?${SIGNED}`).optional(),
        playerSigned: link(`/recordings/${ID}/player.html?${SIGNED}`).optional(),
        screenshotSigned: link(`/recordings/${ID}/screenshot.png?${SIGNED}`).optional(),
        thumbnailSigned: link(`/recordings/${ID}/thumbnail?${SIGNED}`).optional(),
      })
      .describe(
        "Relative paths (absolute under PUBLIC_BASE_URL when configured). The *Signed links exist only with includeSignedUrls=true and open the resource with no other credential until signedUrlsExpireAt; one signature covers the recording's detail, events, player and screenshots.",
      ),
    metadata: z
      .record(z.string(), z.string())
      .describe('Latest written value of every metadata key')
      .meta({ example: { userId: 'user-123', plan: 'pro' } }),
    startedAt: epochMs('First event time, epoch ms').nullable(),
    endedAt: epochMs('Last event time, epoch ms').nullable(),
    duration: z.int().min(0).describe('endedAt - startedAt, ms').meta({ example: 61000 }),
    eventCount: z
      .int()
      .min(0)
      .describe(
        'Events, as GET /recordings/{id}/events returns them (in-band metadata events excluded; events resent under the same sequenceId in another batch count again, see docs/reliability.md)',
      )
      .meta({ example: 420 }),
    bytes: z.int().min(0).describe('Stored payload bytes of all batches').meta({ example: 183422 }),
    pageViews: z.int().min(0).describe('FullSnapshot events').meta({ example: 2 }),
    viewport: z
      .object({ width: z.int(), height: z.int() })
      .nullable()
      .describe('Width and height of the first rrweb Meta event; null without one')
      .meta({ example: { width: 1280, height: 720 } }),
    firstUrl: nullableString('href of the first rrweb Meta event').meta({ example: 'https://example.com/pricing' }),
    lastActivityAt: epochMs('When the service last stored an event batch of the recording (server clock), epoch ms').nullable(),
    live: z
      .boolean()
      .describe(
        "True while events keep arriving: the service stored a batch within LIVE_IDLE_SECONDS (default 60) before the request, by lastActivityAt (server clock), not the events' own timestamps (endedAt, the browser's clock)",
      )
      .meta({ example: false }),
    activity: z
      .object({
        pages: z.int().min(0).describe('Page views (docs/activity.md)'),
        clicks: z.int().min(0).describe('Clicks'),
        errors: z.int().min(0).describe('Console errors and uncaught errors'),
        activeTime: z.int().min(0).describe('Active time, ms (at most duration)'),
      })
      .describe(
        'A short activity summary from the activity projection (zeros until it has projected the recording); GET /recordings/{id}/activity has the timeline',
      )
      .meta({ example: { pages: 3, clicks: 12, errors: 1, activeTime: 48000 } }),
  })
  .meta({ id: 'Recording' });

export class RecordingList extends createZodDto(
  z.object({
    recordings: z.array(RecordingSchema).describe('Newest first by first event time; ties by recordingId descending (stable across pages)'),
    ...pageFields('At least one more recording follows this page (not a cursor: continue with offset + limit)'),
    signedUrlsExpireAt,
  }),
) {}

export class RecordingDetail extends createZodDto(
  RecordingSchema.extend({
    projected: z
      .boolean()
      .describe(
        'False when JetStream holds the recording but the ClickHouse projection does not yet (it lags about a second), or ClickHouse is unreachable: the summary is then empty (nulls and zeros) and metadata {}. Events are readable at once either way.',
      ),
    signedUrlsExpireAt,
  }),
) {}

export type Recording = z.output<typeof RecordingSchema>;
export type RecordingIsDocumented = Assert<SameShape<Recording, RecordingView<RecordingLinks>>>;
