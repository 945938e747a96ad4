import { z } from 'zod';
import { parseWith, queryInt, ValidationError } from './validation';

describe('parseWith', () => {
  const schema = z.object({ limit: queryInt(1, 100, 50), name: z.string().optional() });

  it('says a query parameter given twice must be given once', () => {
    expect(() => parseWith(schema, { limit: ['1', '2'] }, 'query')).toThrow('Invalid query: limit: must be given once');
    expect(() => parseWith(schema, { limit: ['1', '2'] }, 'screenshot query')).toThrow(/limit: must be given once/);
  });

  it("keeps zod's message for other type errors, and for arrays in a JSON body", () => {
    expect(() => parseWith(schema, { limit: '0' }, 'query')).toThrow('Invalid query: limit: must be at least 1');
    expect(() => parseWith(schema, { name: ['a'] }, 'body')).toThrow(/name: Invalid input: expected string, received array/);
    let thrown: unknown;
    try {
      parseWith(schema, { limit: ['1'] }, 'query');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).issues).toEqual([{ path: 'limit', message: 'must be given once' }]);
  });
});
