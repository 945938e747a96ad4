import { ValidationError } from '../../common/validation';
import { parseScreenshotQuery, resolveScreenshotSize } from './screenshot-params';

describe('parseScreenshotQuery', () => {
  it('applies defaults', () => {
    expect(parseScreenshotQuery({})).toEqual({ time: { kind: 'offset', value: 0 }, width: undefined, height: undefined, quality: 80 });
    expect(parseScreenshotQuery(undefined).quality).toBe(80);
  });

  it('parses every parameter', () => {
    expect(parseScreenshotQuery({ time: 'percent:50', width: '640', height: '4096', quality: '1' })).toEqual({
      time: { kind: 'percent', value: 50 },
      width: 640,
      height: 4096,
      quality: 1,
    });
  });

  it('reads time=poster, the moment of thumbnails and previews; the default stays offset:0 (the spec)', () => {
    expect(parseScreenshotQuery({ time: 'poster' }).time).toEqual({ kind: 'poster' });
    expect(() => parseScreenshotQuery({ time: 'poster:1' })).toThrow(/Invalid time/);
  });

  it('ignores parameters it does not know (signature, tenantId, ...)', () => {
    expect(parseScreenshotQuery({ signature: 'x', width: '1' }).width).toBe(1);
  });

  it.each([
    [{ width: '0' }],
    [{ width: '4097' }],
    [{ height: '0' }],
    [{ height: '5000' }],
    [{ width: '-1' }],
    [{ width: '12.5' }],
    [{ width: 'abc' }],
    [{ width: '' }],
    [{ width: ['100', '200'] }],
    [{ quality: '0' }],
    [{ quality: '101' }],
    [{ quality: 'high' }],
  ])('%p is a 400', (query) => {
    expect(() => parseScreenshotQuery(query)).toThrow(ValidationError);
  });

  it('rejects a bad time selector with a 400', () => {
    expect(() => parseScreenshotQuery({ time: 'soon' })).toThrow(/Invalid time/);
  });
});

describe('resolveScreenshotSize', () => {
  const wide = { width: 1920, height: 1080 };
  const tall = { width: 390, height: 844 };

  it.each([
    // [requested, viewport, expected]
    [{}, undefined, { width: 1280, height: 720 }],
    [{}, wide, { width: 1280, height: 720 }],
    [{}, tall, { width: 1280, height: 2770 }],
    [{}, { width: 1000, height: 1000 }, { width: 1280, height: 1280 }],
    [{ width: 640 }, undefined, { width: 640, height: 720 }],
    [{ width: 640 }, wide, { width: 640, height: 360 }],
    [{ width: 100 }, { width: 3, height: 1 }, { width: 100, height: 33 }],
    [{ height: 360 }, undefined, { width: 1280, height: 360 }],
    [{ height: 360 }, wide, { width: 640, height: 360 }],
    [{ height: 844 }, tall, { width: 390, height: 844 }],
    [{ width: 300, height: 200 }, wide, { width: 300, height: 200 }],
    [{ width: 300, height: 200 }, undefined, { width: 300, height: 200 }],
    // derived values are clamped to 1..4096
    [{ width: 4000 }, { width: 100, height: 1000 }, { width: 4000, height: 4096 }],
    [{ width: 1 }, { width: 10000, height: 1 }, { width: 1, height: 1 }],
    [{ height: 4096 }, { width: 2, height: 1 }, { width: 4096, height: 4096 }],
    // a viewport without a usable size is ignored
    [{ width: 640 }, { width: 0, height: 0 }, { width: 640, height: 720 }],
  ])('%p with viewport %p → %p', (requested, viewport, expected) => {
    expect(resolveScreenshotSize(requested, viewport)).toEqual(expected);
  });
});
