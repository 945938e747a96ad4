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

  it('reads a range of start times, ISO 8601 with a zone or epoch milliseconds, either end open', () => {
    expect(RecordingsQueryParams.list({ startedAfter: '2026-01-01T01:00:00+01:00', startedBefore: '1767229200000' }).started).toEqual({
      from: Date.UTC(2026, 0, 1),
      to: 1767229200000,
    });
    expect(RecordingsQueryParams.list({ startedAfter: '2026-01-01' }).started).toEqual({ from: Date.UTC(2026, 0, 1), to: undefined });
    expect(RecordingsQueryParams.list({ startedBefore: '5', 'metadata[a]': 'b' })).toMatchObject({ started: { to: 5 }, filters: [{ key: 'a', value: 'b' }] });
    expect(RecordingsQueryParams.list({}).started).toBeUndefined();
  });

  it('reads the activity filters, each beside the others and the metadata filters', () => {
    const p = RecordingsQueryParams.list({
      visitedPathPrefix: '/check',
      visitedUrlContains: 'SHOP',
      clickedText: 'Pay',
      hasErrors: 'true',
      errorText: 'boom',
      hasRageClicks: '0',
      hasDeadClicks: '1',
      minDuration: '1000',
      maxDuration: '1000',
      minActiveTime: '0',
      maxActiveTime: '60000',
      'metadata[plan]': 'pro',
    });
    expect(p.filters).toEqual([{ key: 'plan', value: 'pro' }]);
    expect(p.activity).toEqual({
      urls: [
        { value: 'SHOP', on: 'url', match: 'contains' },
        { value: '/check', on: 'path', match: 'prefix' },
      ],
      clickedText: 'Pay',
      hasErrors: true,
      errorText: 'boom',
      hasRageClicks: false,
      hasDeadClicks: true,
      minDuration: 1000,
      maxDuration: 1000,
      minActiveTime: 0,
      maxActiveTime: 60000,
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
      /^Invalid query: firstUrl: unknown parameter; this endpoint takes limit, offset, includeSignedUrls, live, startedAfter, startedBefore, visitedUrl, .*, maxActiveTime, metadata\[<key>\]=<value>$/,
    ],
    [{ 'meta[plan]': 'pro', order: 'asc' }, /order: unknown parameter/],
    [{ hasErrors: 'yes' }, /^Invalid query: hasErrors: must be true or false$/],
    [{ hasRageClicks: '' }, /hasRageClicks: must be true or false/],
    [{ minDuration: '-1' }, /^Invalid query: minDuration: must be at least 0$/],
    [{ maxActiveTime: '1.5' }, /maxActiveTime: must be an integer/],
    [{ minDuration: '2000', maxDuration: '1000' }, /^Invalid query: minDuration: must not exceed maxDuration$/],
    [{ minActiveTime: '5', maxActiveTime: '4' }, /minActiveTime: must not exceed maxActiveTime/],
    [{ visitedPath: '' }, /^Invalid query: visitedPath: must not be empty$/],
    [{ clickedText: 'x'.repeat(2049) }, /clickedText: must be at most 2048 characters/],
    [{ errorText: ['a', 'b'] }, /errorText/],
    [{ startedAfter: '2026-01-01T00:00:00' }, /^Invalid query: startedAfter: must be epoch milliseconds or ISO 8601/],
    [{ startedBefore: 'yesterday' }, /startedBefore: must be epoch milliseconds or ISO 8601/],
    [{ startedAfter: '2026-02-30' }, /startedAfter: is not a date of the calendar/],
    [{ startedBefore: '-5' }, /startedBefore: must be epoch milliseconds/],
    [{ startedAfter: '2000', startedBefore: '1000' }, /^Invalid query: startedAfter: startedAfter must be before startedBefore$/],
    [{ startedAfter: '1000', startedBefore: '1000' }, /startedAfter must be before startedBefore/],
  ])('refuses %j', (q, message) => {
    expect(() => RecordingsQueryParams.list(q)).toThrow(ValidationError);
    expect(() => RecordingsQueryParams.list(q)).toThrow(message);
  });
});
