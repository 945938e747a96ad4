// zod schemas rendered as OpenAPI 3.0 schema objects, for the places a route documents a schema
// outside a DTO (error bodies, path and query parameters the route reads itself), and the zod
// building blocks the DTOs share for what OpenAPI should say of a value (int64 times, nullable strings).
import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery, type SchemaObject } from '@nestjs/swagger';
import { z } from 'zod';

/** The request side (what a client may send) or the response side (what the service answers). */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output'): SchemaObject {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io });
  return json as SchemaObject;
}

/**
 * One query parameter per field of `schema`, for parameters the route validates itself (credentials,
 * the ingestion id with its own "required" message, the player's and screenshots' queries with their
 * own error wording) rather than through a DTO parameter.
 */
export const ApiQueryParams = (schema: z.ZodObject) => apiParams('query', schema);

/** One path parameter per field of `schema`, for a path the route reads itself (an unknown player asset is a 404, not a 400). */
export const ApiPathParams = (schema: z.ZodObject) => apiParams('path', schema);

function apiParams(where: 'query' | 'path', schema: z.ZodObject) {
  return applyDecorators(
    ...Object.entries(schema.shape).map(([name, field]) => {
      const { description, ...fieldSchema } = openApiSchema(field, 'input');
      return where === 'query'
        ? ApiQuery({ name, required: !field.safeParse(undefined).success, description, schema: fieldSchema })
        : ApiParam({ name, required: true, description, schema: fieldSchema });
    }),
  );
}

/**
 * A string or null. The description goes on the string: zod renders a bare nullable string as
 * `type: ['string', 'null']`, which OpenAPI 3.0 lacks and @nestjs/swagger misreads as an array; a
 * described one stays `anyOf`, which nestjs-zod turns into `nullable: true`.
 */
export const nullableString = (description: string) => z.string().describe(description).nullable();

/** Epoch milliseconds: 64-bit for client generators (epoch ms overflow 32-bit integers). */
export const epochMs = (description: string) => z.int().min(0).describe(description).meta({ format: 'int64' });

/** The query of a presigned link, for the examples of the links a response signs. */
export const SIGNED_QUERY_EXAMPLE = 'tenantId=acme&expires=1735689600&keyId=key-2024-12&signature=3f6c…';

/** When the presigned links of a response (includeSignedUrls=true) expire, UNIX seconds, as their `expires`. */
export const signedLinksExpiry = (description: string) => z.int().min(0).optional().describe(description).meta({ example: 1735689600 });
