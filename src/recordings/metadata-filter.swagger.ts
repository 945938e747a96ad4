// OpenAPI description of metadata[<key>]=<value> filters (deepObject style), for every endpoint
// that accepts them.
import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { MAX_META_KEY_LENGTH, MAX_META_VALUE_LENGTH } from '../domain/batch-summary';
import { MAX_METADATA_FILTERS } from '../read-model/metadata-filter';

export function ApiMetadataFilters() {
  const schema = { type: 'object' as const, additionalProperties: { type: 'string' as const, maxLength: MAX_META_VALUE_LENGTH } };
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
    ApiQuery({ name: 'meta', required: false, style: 'deepObject', explode: true, schema, description: 'rrweb Cloud\'s spelling of the same filters: meta[<key>]=<value>; may be mixed with metadata[…] (a key may still appear only once).' }),
  );
}
