// The metadata[<key>]=<value> filters as OpenAPI documents them (deepObject query parameters), for
// every endpoint that takes them. Fastify leaves such keys flat ("metadata[plan]"), so they are read
// by parseMetadataFilters (metadata-filter.ts) from the query's other parameters, with these bounds.
import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { z } from 'zod';
import { openApiSchema } from '../common/openapi/openapi-schema';
import { MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH } from '../domain/batch-summary';
import { MAX_METADATA_FILTERS } from './metadata-filter';

export const MetadataFiltersSchema = z.record(z.string().min(1).max(MAX_META_KEY_LENGTH), z.string().max(MAX_META_VALUE_LENGTH));

export function ApiMetadataFilters() {
  const schema = openApiSchema(MetadataFiltersSchema, 'input');
  return applyDecorators(
    ApiQuery({
      name: 'metadata',
      required: false,
      style: 'deepObject',
      explode: true,
      schema,
      example: { userId: 'user-123', plan: 'pro' },
      description:
        `Filters metadata[<key>]=<value> (URL-encode key and value), combined with AND: a recording matches when the latest written value of each key equals the value exactly. ` +
        `Keys 1-${MAX_META_KEY_LENGTH} characters, values at most ${MAX_META_VALUE_LENGTH}, at most ${MAX_METADATA_FILTERS} filters; a key given twice, an empty key or a bare metadata=… is a 400; so is (JSON, naming it) a parameter that starts like a filter but is not one, such as metadata[plan=pro or metadata.plan=pro.`,
    }),
    ApiQuery({
      name: 'meta',
      required: false,
      style: 'deepObject',
      explode: true,
      schema,
      description: "rrweb Cloud's spelling of the same filters: meta[<key>]=<value>; may be mixed with metadata[…] (a key may still appear only once).",
    }),
  );
}
