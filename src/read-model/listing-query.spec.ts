import { z } from 'zod';
import { parseWith, ValidationError } from '../common/validation';
import { listingQuery } from './listing-query';

const withFilters = listingQuery({ limit: z.string().optional(), includeSignedUrls: z.string().optional() }, { filters: true });
const withoutFilters = listingQuery({ limit: z.string().optional() }, { filters: false });

const refusal = (schema: z.ZodType, query: Record<string, unknown>): ValidationError => {
  try {
    parseWith(schema, query, 'query');
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
};

describe('listingQuery', () => {
  it('keeps its own parameters, the filters and the credential parameters, as given', () => {
    const query = {
      limit: '5',
      includeSignedUrls: 'true',
      'metadata[plan]': 'pro',
      'meta[userId]': 'u1',
      tenantId: 't',
      expires: '1',
      keyId: 'k',
      signature: 'ab',
      token: 'x',
    };
    expect(parseWith(withFilters, query, 'query')).toEqual(query);
  });

  it('leaves what starts like a filter to the filters, which say what is wrong with it', () => {
    expect(parseWith(withFilters, { 'metadata.plan': 'pro', 'metadata[plan': 'pro', metadata: 'x' }, 'query')).toBeDefined();
  });

  it('refuses an unknown parameter with a 400 naming it and what the endpoint takes', () => {
    const e = refusal(withFilters, { limit: '5', firstUrl: 'https://example.com' });
    expect(e.message).toBe('Invalid query: firstUrl: unknown parameter; this endpoint takes limit, includeSignedUrls, metadata[<key>]=<value>');
    expect(e.issues).toEqual([{ path: 'firstUrl', message: expect.stringMatching(/^unknown parameter/) }]);
  });

  it('names every unknown parameter, given once or more', () => {
    const e = refusal(withFilters, { firstUrl: 'a', duration: ['1', '2'], metadataX: 'y' });
    expect(e.issues.map((i) => i.path)).toEqual(['firstUrl', 'duration', 'metadataX']);
  });

  it('refuses filters where the endpoint takes none', () => {
    const e = refusal(withoutFilters, { 'metadata[plan]': 'pro', token: 't' });
    expect(e.issues).toEqual([{ path: 'metadata[plan]', message: 'unknown parameter; this endpoint takes limit' }]);
  });

  it('reports a bad known parameter as before', () => {
    const schema = listingQuery({ limit: z.literal('1') }, { filters: false });
    expect(refusal(schema, { limit: '2', other: 'x' }).message).toMatch(/^Invalid query: limit: /);
  });
});
