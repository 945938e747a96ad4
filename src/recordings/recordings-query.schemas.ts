// OpenAPI schemas of the listing and detail responses (used by @ApiResponse in the controller).
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { LIST_LIMIT } from './recordings-query.params';

const id = '550e8400-e29b-41d4-a716-446655440000';
const signed = 'tenantId=acme&expires=1735689600&keyId=key-2024-12&signature=3f6c…';
const ms = (description: string, nullable = false): SchemaObject => ({ type: 'integer', format: 'int64', description, nullable });

const links: SchemaObject = {
  type: 'object',
  required: ['self', 'events', 'player', 'screenshot'],
  description: 'Relative paths (absolute under PUBLIC_BASE_URL when configured). The *Signed links exist only with includeSignedUrls=true and open the resource with no other credential until signedUrlsExpireAt; one signature covers the recording\'s detail, events, player and screenshots.',
  properties: {
    self: { type: 'string', example: `/recordings/${id}` },
    events: { type: 'string', example: `/recordings/${id}/events` },
    player: { type: 'string', example: `/recordings/${id}/player.html` },
    screenshot: { type: 'string', example: `/recordings/${id}/screenshot.png` },
    selfSigned: { type: 'string', example: `/recordings/${id}?${signed}` },
    eventsSigned: { type: 'string', example: `/recordings/${id}/events?${signed}` },
    playerSigned: { type: 'string', example: `/recordings/${id}/player.html?${signed}` },
    screenshotSigned: { type: 'string', example: `/recordings/${id}/screenshot.png?${signed}` },
  },
};

export const recordingSchema: SchemaObject = {
  type: 'object',
  required: ['recordingId', 'timestamp', 'links', 'metadata', 'startedAt', 'endedAt', 'duration', 'eventCount', 'bytes', 'pageViews', 'viewport', 'firstUrl', 'lastActivityAt'],
  properties: {
    recordingId: { type: 'string', format: 'uuid', example: id },
    timestamp: ms('First event time, epoch ms (as rrweb Cloud\'s timestamp); equals startedAt. Null only for a recording not projected yet (detail).', true),
    links,
    metadata: { type: 'object', additionalProperties: { type: 'string' }, description: 'Latest written value of every metadata key', example: { userId: 'user-123', plan: 'pro' } },
    startedAt: ms('First event time, epoch ms', true),
    endedAt: ms('Last event time, epoch ms', true),
    duration: { type: 'integer', description: 'endedAt - startedAt, ms', example: 61000 },
    eventCount: { type: 'integer', description: 'Events, as GET /recordings/{id}/events returns them (in-band metadata events excluded; events resent under the same sequenceId in another batch count again, see docs/reliability.md)', example: 420 },
    bytes: { type: 'integer', description: 'Stored payload bytes of all batches', example: 183422 },
    pageViews: { type: 'integer', description: 'FullSnapshot events', example: 2 },
    viewport: { type: 'object', nullable: true, description: 'Width and height of the first rrweb Meta event; null without one', properties: { width: { type: 'integer' }, height: { type: 'integer' } }, example: { width: 1280, height: 720 } },
    firstUrl: { type: 'string', nullable: true, description: 'href of the first rrweb Meta event', example: 'https://example.com/pricing' },
    lastActivityAt: ms('When the service last stored an event batch of the recording (server clock), epoch ms', true),
  },
};

export const recordingListSchema: SchemaObject = {
  type: 'object',
  required: ['recordings', 'limit', 'offset', 'hasMore'],
  properties: {
    recordings: { type: 'array', items: recordingSchema, description: 'Newest first by first event time; ties by recordingId descending (stable across pages)' },
    limit: { type: 'integer', minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, example: LIST_LIMIT.default },
    offset: { type: 'integer', minimum: 0, example: 0 },
    hasMore: { type: 'boolean', description: 'At least one more recording follows this page (not a cursor: continue with offset + limit)' },
    signedUrlsExpireAt: { type: 'integer', description: 'With includeSignedUrls=true: expiry of every signed link in the response, UNIX seconds (the links\' expires)', example: 1735689600 },
  },
};

export const recordingDetailSchema: SchemaObject = {
  ...recordingSchema,
  required: [...(recordingSchema.required ?? []), 'projected'],
  properties: {
    ...recordingSchema.properties,
    projected: {
      type: 'boolean',
      description:
        'False when JetStream holds the recording but the ClickHouse projection does not yet (it lags about a second), or ClickHouse is unreachable: the summary is then empty (nulls and zeros) and metadata {}. Events are readable at once either way.',
    },
    signedUrlsExpireAt: recordingListSchema.properties!.signedUrlsExpireAt,
  },
};
