// Documented answers that are no DTO: errors (application and authentication failures are text/plain;
// request-schema failures, common/validation, are JSON {error, message, issues}), bodies that are not
// JSON (pages, images, scripts), and the 304 of a conditional GET.
import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { z } from 'zod';
import { openApiSchema } from './openapi-schema';

/** The body of a request-schema failure, as the error filter writes a ValidationError. */
export const ValidationErrorSchema = z.object({
  error: z.literal('validation_failed'),
  message: z.string().meta({ example: 'Invalid query: limit: must be at most 100' }),
  issues: z.array(z.object({ path: z.string().describe('The failing field (empty: the parameter itself)'), message: z.string() })),
});

const text = (example: string) => ({ 'text/plain': { schema: openApiSchema(z.string().meta({ example }), 'output') } });
const validationError = { 'application/json': { schema: openApiSchema(ValidationErrorSchema, 'output') } };

export const ApiTextError = (status: number, description: string, example: string) => ApiResponse({ status, description, content: text(example) });

/** 400 with both bodies: text/plain for application checks, JSON for schema validation. */
export const ApiBadRequest = (description: string, textExample: string) =>
  ApiResponse({ status: 400, description, content: { ...text(textExample), ...validationError } });

/** 400 of request-schema validation alone (JSON). */
export const ApiValidationError = (description: string) => ApiResponse({ status: 400, description, content: validationError });

/** 400 for a recordingId that is not a UUID, the route's only request-schema failure. */
export const ApiInvalidRecordingId = () => ApiValidationError('recordingId not a UUID');

/** 503 of a read from the event store (JetStream) and/or the ClickHouse projections, answered before any body. */
export const ApiStoreUnavailable = (stores: 'events' | 'projections' | 'both') =>
  ApiTextError(
    503,
    `${{ events: 'Event store (JetStream)', projections: 'ClickHouse', both: 'Event store (JetStream) or ClickHouse' }[stores]} unreachable or not answering; nothing was sent, retry (see Retry-After)`,
    stores === 'projections' ? 'The read model (ClickHouse) is unavailable; retry shortly' : 'Event store (NATS JetStream) is unreachable; retry later',
  );

/** 413 and 415 of a JSON body read through common/request-body (and Fastify's content-type check). */
export const ApiJsonBodyLimits = (maxBytes: number) =>
  applyDecorators(
    ApiTextError(413, `Body (or decompressed body) larger than ${maxBytes} bytes`, `Request body exceeds ${maxBytes} bytes`),
    ApiTextError(415, 'Content-Type not application/json, or an unsupported Content-Encoding', 'Unsupported content encoding "compress"'),
  );

/** A 200 whose body is not JSON (a page, an image, a script): the same zod schema under each media type it may have. */
export const ApiContent = (description: string, mediaTypes: string[], schema: z.ZodType) =>
  ApiResponse({ status: 200, description, content: Object.fromEntries(mediaTypes.map((t) => [t, { schema: openApiSchema(schema, 'output') }])) });

/** If-None-Match and its 304, for bodies served through common/static-asset's conditionalGet. */
export const ApiConditionalGet = () =>
  applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'ETag of a cached copy; answered with 304 when unchanged',
      schema: openApiSchema(z.string(), 'input'),
    }),
    ApiResponse({ status: 304, description: 'If-None-Match matched the ETag' }),
  );

/** Accept-Encoding for assets served through common/static-asset's negotiatedGet. */
export const ApiCompressed = () =>
  ApiHeader({
    name: 'Accept-Encoding',
    required: false,
    description:
      'br or gzip (by q-value, br on a tie): the body is sent compressed with Content-Encoding, its own ETag and Vary: Accept-Encoding; identity otherwise',
    schema: openApiSchema(z.string(), 'input'),
  });
