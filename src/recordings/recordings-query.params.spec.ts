import { parseWith, ValidationError } from '../common/validation';
import { listParams } from './recordings-query.params';
import { ListRecordingsQuery } from './recordings.dto';

/** The listing's query string as the route reads it: its DTO (through ZodValidationPipe), then the filters. */
const RecordingsQueryParams = { list: (query: Record<string, unknown>) => listParams(parseWith(ListRecordingsQuery.schema, query, 'query')) };

describe('RecordingsQueryParams.list', () => {
  it('defaults to limit 50, offset 0, no signed URLs, no filters', () => {
    expect(RecordingsQueryParams.list({})).toEqual({ limit: 50, offset: 0, includeSignedUrls: false, filters: [] });
  });

  it("takes a presigned link's parameters and a token beside a key (authentication reads them)", () => {
    expect(RecordingsQueryParams.list({ tenantId: 't', expires: '1', keyId: 'k', signature: 'ab', token: 'x' }).filters).toEqual([]);
  });

  it('reads limits, booleans and filters', () => {
    expect(RecordingsQueryParams.list({ limit: '100', offset: '7', includeSignedUrls: 'true', 'meta[a]': 'b' })).toEqual({
      limit: 100,
      offset: 7,
      includeSignedUrls: true,
      filters: [{ key: 'a', value: 'b' }],
    });
  });

  it.each([
    [{ limit: '0' }, /limit: must be at least 1/],
    [{ limit: '101' }, /limit: must be at most 100/],
    [{ limit: '9'.repeat(40) }, /limit: must be at most 100/],
    [{ limit: '9'.repeat(400) }, /limit: must be at most 100/],
    [{ offset: '-' + '9'.repeat(400) }, /offset: must be at least 0/],
    [{ limit: '1.5' }, /limit: must be an integer/],
    [{ limit: '' }, /limit: must be an integer/],
    [{ offset: '-1' }, /offset: must be at least 0/],
    [{ offset: 'abc' }, /offset: must be an integer/],
    [{ offset: ['1', '2'] }, /offset/],
    [{ includeSignedUrls: 'yes' }, /includeSignedUrls: must be true or false/],
    [
      { firstUrl: 'https://example.com/' },
      /^Invalid query: firstUrl: unknown parameter; this endpoint takes limit, offset, includeSignedUrls, live, metadata\[<key>\]=<value>$/,
    ],
    [{ 'meta[plan]': 'pro', order: 'asc' }, /order: unknown parameter/],
  ])('refuses %j', (q, message) => {
    expect(() => RecordingsQueryParams.list(q)).toThrow(ValidationError);
    expect(() => RecordingsQueryParams.list(q)).toThrow(message);
  });
});
