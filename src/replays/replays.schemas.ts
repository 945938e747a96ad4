// OpenAPI schemas of the replay responses (used by @ApiResponse in the controller).
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { LIST_LIMIT } from '../recordings/recordings-query.params';

const events: SchemaObject = { type: 'array', items: { $ref: '#/components/schemas/Event' } };
const signed = 'tenantId=acme&expires=1735689600&keyId=key-2024-12&signature=3f6c…';
const expireAt: SchemaObject = { type: 'integer', description: 'With includeSignedUrls=true: expiry of the signed links, UNIX seconds', example: 1735689600 };

export const replaySchema: SchemaObject = {
  type: 'object',
  required: ['metadata', 'events'],
  properties: { metadata: { type: 'object', additionalProperties: { type: 'string' } }, events },
};

export const replayEventsSchema = events;

const replayItem: SchemaObject = {
  type: 'object',
  required: ['groupingProp', 'replayValue', 'recordings', 'startedAt', 'endedAt', 'duration', 'links'],
  properties: {
    groupingProp: { type: 'string', example: 'sessionId' },
    replayValue: { type: 'string', example: 'S1' },
    recordings: { type: 'integer', description: 'Recordings in the group', example: 3 },
    startedAt: { type: 'integer', format: 'int64', description: 'First stored event, epoch ms', example: 1700000000000 },
    endedAt: { type: 'integer', format: 'int64', description: 'Last stored event, epoch ms', example: 1700000060000 },
    duration: { type: 'integer', description: 'endedAt - startedAt, ms', example: 60000 },
    links: {
      type: 'object',
      required: ['self', 'events'],
      properties: {
        self: { type: 'string', example: '/replays/sessionId/S1' },
        events: { type: 'string', example: '/replays/sessionId/S1/events' },
        selfSigned: { type: 'string', example: `/replays/sessionId/S1?${signed}` },
        eventsSigned: { type: 'string', example: `/replays/sessionId/S1/events?${signed}` },
      },
    },
    signedUrlsExpireAt: expireAt,
  },
};

export const replayListSchema: SchemaObject = {
  type: 'object',
  required: ['replays', 'limit', 'offset', 'hasMore'],
  properties: {
    replays: { type: 'array', items: replayItem },
    limit: { type: 'integer', minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, example: LIST_LIMIT.default },
    offset: { type: 'integer', minimum: 0, example: 0 },
    hasMore: { type: 'boolean', description: 'At least one more replay follows this page (continue with offset + limit)' },
    signedUrlsExpireAt: expireAt,
  },
};
