// OpenAPI helpers for error responses: application errors are text/plain; request-schema failures
// (bad limit, offset, booleans, dates) are JSON {error, message, issues}.
import { applyDecorators } from '@nestjs/common';
import { ApiQuery, ApiResponse } from '@nestjs/swagger';
import { LIST_LIMIT, MAX_OFFSET } from './recordings-query.params';

const text = (example: string) => ({ 'text/plain': { schema: { type: 'string' as const, example } } });

export const validationErrorSchema = {
  type: 'object' as const,
  required: ['error', 'message', 'issues'],
  properties: {
    error: { type: 'string' as const, example: 'validation_failed' },
    message: { type: 'string' as const, example: 'Invalid query: limit: must be at most 100' },
    issues: { type: 'array' as const, items: { type: 'object' as const, properties: { path: { type: 'string' as const }, message: { type: 'string' as const } } } },
  },
};

/** 400 with both bodies: text/plain for application checks, JSON for schema validation. */
export function ApiBadRequest(description: string, textExample: string) {
  return ApiResponse({ status: 400, description, content: { ...text(textExample), 'application/json': { schema: validationErrorSchema } } });
}

export function ApiTextError(status: number, description: string, example: string) {
  return applyDecorators(ApiResponse({ status, description, content: text(example) }));
}

/** 503 of a read from the event store (JetStream) and/or the ClickHouse projections, answered before any body. */
export const ApiStoreUnavailable = (stores: 'events' | 'projections' | 'both') =>
  ApiTextError(
    503,
    `${{ events: 'Event store (JetStream)', projections: 'ClickHouse', both: 'Event store (JetStream) or ClickHouse' }[stores]} unreachable or not answering; nothing was sent, retry (see Retry-After)`,
    stores === 'projections' ? 'The read model (ClickHouse) is unavailable; retry shortly' : 'Event store (NATS JetStream) is unreachable; retry later',
  );

/** 400 for a recordingId that is not a UUID, the route's only request-schema failure (JSON). */
export const ApiInvalidRecordingId = () =>
  ApiResponse({ status: 400, description: 'recordingId not a UUID', content: { 'application/json': { schema: validationErrorSchema } } });

/** 413 and 415 of a JSON body read through common/request-body (and Fastify's content-type check). */
export function ApiJsonBodyLimits(maxBytes: number) {
  return applyDecorators(
    ApiTextError(413, `Body (or decompressed body) larger than ${maxBytes} bytes`, `Request body exceeds ${maxBytes} bytes`),
    ApiTextError(415, 'Content-Type not application/json, or an unsupported Content-Encoding', 'Unsupported content encoding "compress"'),
  );
}

/** limit and offset of the offset-paginated listings (recordings, replays), with the bounds they are validated against. */
export function ApiPagination(items: string) {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default },
      description: `${items} per page, ${LIST_LIMIT.min}-${LIST_LIMIT.max}, default ${LIST_LIMIT.default}`,
    }),
    ApiQuery({ name: 'offset', required: false, schema: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 }, description: `${items} to skip, default 0` }),
  );
}

/** A query-string boolean as common/validation's queryBoolean reads it. */
export const QUERY_BOOLEAN = { type: 'string' as const, enum: ['true', 'false', '1', '0'] };
