import { ValidationError } from '../common/validation';
import { MAX_METADATA_FILTERS, parseMetadataFilters } from './metadata-filter';

const thrown = (query: Record<string, unknown>): unknown => {
  try {
    parseMetadataFilters(query);
  } catch (e) {
    return e;
  }
  return undefined;
};

/** Every refusal is a validation error (400 JSON) naming the query parameter. */
const fails = (query: Record<string, unknown>, message: RegExp, param = Object.keys(query)[0]) => {
  const err = thrown(query);
  expect(err).toBeInstanceOf(ValidationError);
  expect((err as ValidationError).message).toMatch(message);
  expect((err as ValidationError).issues).toEqual([{ path: param, message: expect.stringMatching(message) }]);
};

describe('parseMetadataFilters', () => {
  it('reads metadata[k] and meta[k] from flat keys, ignoring other parameters', () => {
    expect(parseMetadataFilters({ limit: '5', 'metadata[userId]': 'u1', 'meta[plan]': 'pro', metadataX: 'y' })).toEqual([
      { key: 'userId', value: 'u1' },
      { key: 'plan', value: 'pro' },
    ]);
  });

  it('keeps keys verbatim: brackets, quotes, backslashes, unicode, __proto__, empty values', () => {
    const q = { 'metadata[a]b]': '1', "metadata[it's]": 'x\\y', 'metadata[名前]': 'ü', 'metadata[__proto__]': 'p', 'meta[constructor]': '' };
    expect(parseMetadataFilters(q)).toEqual([
      { key: 'a]b', value: '1' },
      { key: "it's", value: 'x\\y' },
      { key: '名前', value: 'ü' },
      { key: '__proto__', value: 'p' },
      { key: 'constructor', value: '' },
    ]);
  });

  it('accepts a nested object from a qs-style parser', () => {
    expect(parseMetadataFilters({ metadata: { userId: 'u1' }, meta: { plan: 'pro' } })).toEqual([
      { key: 'userId', value: 'u1' },
      { key: 'plan', value: 'pro' },
    ]);
  });

  it('refuses a key given twice, also across metadata[] and meta[]', () => {
    fails({ 'metadata[a]': ['1', '2'] }, /"a" is given more than once/);
    fails({ 'metadata[a]': '1', 'meta[a]': '2' }, /"a" is given more than once/, 'meta[a]');
  });

  it('refuses an empty key, a bare parameter, too long keys and values, bad unicode, too many filters', () => {
    fails({ 'metadata[]': 'x' }, /key is empty/);
    fails({ metadata: 'x' }, /use metadata\[<key>\]=<value>/);
    fails({ meta: 'x' }, /use meta\[<key>\]=<value>/);
    fails({ [`metadata[${'k'.repeat(201)}]`]: 'x' }, /1-200 characters/);
    fails({ 'metadata[k]': 'v'.repeat(4097) }, /at most 4096/);
    fails({ 'metadata[k]': 'a\ud800' }, /valid Unicode/);
    const many = Object.fromEntries(Array.from({ length: MAX_METADATA_FILTERS + 1 }, (_, i) => [`metadata[k${i}]`, 'v']));
    fails(many, /at most 20/, 'metadata');
  });

  it('accepts the limits exactly', () => {
    const key = 'k'.repeat(200);
    expect(parseMetadataFilters({ [`metadata[${key}]`]: 'v'.repeat(4096) })).toEqual([{ key, value: 'v'.repeat(4096) }]);
  });
});

describe('parseMetadataFilters on malformed filter parameters', () => {
  const invalid = (query: Record<string, unknown>, name: string) => {
    const err = thrown(query);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      { path: name, message: expect.stringMatching(/^not a metadata filter; use meta(data)?\[<key>\]=<value>$/) },
    ]);
    expect((err as ValidationError).message).toContain(JSON.stringify(name));
  };

  it.each(['metadata[plan', 'metadata.plan', 'meta[plan', 'meta.plan', 'metadata[plan]x', 'metadata plan]', 'metadata]plan[', 'meta{plan}'])(
    'refuses %s (with the other filters valid) instead of ignoring it and widening the result',
    (name) => {
      invalid({ [name]: 'pro' }, name);
      invalid({ 'metadata[userId]': 'u1', [name]: 'pro', limit: '5' }, name);
    },
  );

  it('still ignores parameters that merely start with the word', () => {
    expect(parseMetadataFilters({ metadataX: '1', meta_y: '2', 'metas-z': '3', metaplan: '4', 'metadata[a]': 'b' })).toEqual([{ key: 'a', value: 'b' }]);
  });
});
