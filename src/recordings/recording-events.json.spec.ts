import fc from 'fast-check';
import { writeNumber } from './recording-events.json';

describe('writeNumber', () => {
  const written = (v: number) => {
    const buf = Buffer.alloc(40, 0x78);
    const end = writeNumber(buf, 3, v);
    return buf.subarray(3, end).toString('latin1');
  };

  it('writes any number as String() does', () => {
    fc.assert(fc.property(fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.maxSafeInteger(), fc.double()), (v) => expect(written(v)).toBe(String(v))));
    for (const v of [0, -0, 9, 10, 99, 100, 1_700_000_000_000, Number.MAX_SAFE_INTEGER, 2 ** 53, -1, 1.5, 1e21]) expect(written(v)).toBe(String(v));
  });
});
