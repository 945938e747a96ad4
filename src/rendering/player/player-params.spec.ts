import { ValidationError } from '../../common/validation';
import { parsePlayerQuery } from './player-params';

describe('parsePlayerQuery', () => {
  it('applies the defaults', () => {
    expect(parsePlayerQuery({})).toEqual({
      controls: true,
      autoplay: false,
      mode: 'standard',
      speed: 1,
      time: { kind: 'offset', value: 0 },
      eventsUrl: undefined,
    });
  });

  it('parses every parameter', () => {
    expect(
      parsePlayerQuery({ controls: '0', autoplay: '1', mode: 'capture', speed: '0.25', time: 'percent:50', eventsUrl: '/recordings/x/events?signature=abc' }),
    ).toEqual({
      controls: false,
      autoplay: true,
      mode: 'capture',
      speed: 0.25,
      time: { kind: 'percent', value: 50 },
      eventsUrl: '/recordings/x/events?signature=abc',
    });
    expect(parsePlayerQuery({ controls: 'false', autoplay: 'true', speed: '4', mode: 'minimal' })).toMatchObject({
      controls: false,
      autoplay: true,
      speed: 4,
      mode: 'minimal',
    });
  });

  it.each([
    ['.5', 0.5],
    ['1.', 1],
    ['0.2500000000000001', 0.2500000000000001],
    ['4.000000', 4],
    ['002', 2],
  ])('reads speed %p as any language prints a number in range', (speed, value) => {
    expect(parsePlayerQuery({ speed }).speed).toBe(value);
  });

  it.each([
    [{ controls: 'yes' }],
    [{ autoplay: 'TRUE' }],
    [{ mode: 'full' }],
    [{ speed: '0.2' }],
    [{ speed: '4.01' }],
    [{ speed: '8' }],
    [{ speed: 'fast' }],
    [{ speed: '-1' }],
    [{ speed: '' }],
    [{ speed: '.' }],
    [{ speed: '0.24999999' }],
    [{ speed: '4.0000001' }],
    [{ speed: '1e0' }],
    [{ speed: ' 1' }],
  ])('%p is a 400', (query) => {
    expect(() => parsePlayerQuery(query)).toThrow(ValidationError);
  });

  it('rejects a bad time with a 400', () => {
    expect(() => parsePlayerQuery({ time: 'offset:x' })).toThrow(/Invalid time/);
  });

  describe('eventsUrl', () => {
    const origin = 'https://tapedeck.example.com';
    const ok = (u: string, o?: string) => parsePlayerQuery({ eventsUrl: u }, o).eventsUrl;

    it.each([
      ['/recordings/a/events', '/recordings/a/events'],
      ['/recordings/a/events?expires=1&signature=x#y', '/recordings/a/events?expires=1&signature=x#y'],
      ['events', 'events'],
      ['./events?x=1', './events?x=1'],
      ['../a/events', '../a/events'],
    ])('accepts the relative URL %p', (u, expected) => {
      expect(ok(u)).toBe(expected);
      expect(ok(u, origin)).toBe(expected);
    });

    it('accepts an absolute URL of the same origin, as a path', () => {
      expect(ok('https://tapedeck.example.com/recordings/a/events?s=1', origin)).toBe('/recordings/a/events?s=1');
      expect(ok('https://TAPEDECK.example.com:443/x', origin)).toBe('/x');
    });

    it.each([
      'https://evil.example.com/events',
      'http://tapedeck.example.com/events',
      'https://tapedeck.example.com:8443/events',
      'https://tapedeck.example.com.evil.com/events',
      '//evil.example.com/events',
      '///evil.example.com/events',
      '/\\evil.example.com/events',
      '\\\\evil.example.com/events',
      ' //evil.example.com',
      '\t//evil.example.com',
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:application/json,[]',
      'blob:https://tapedeck.example.com/uuid',
      'file:///etc/passwd',
      'https:evil.example.com',
      'https://user@evil.example.com',
      '',
    ])('refuses %p with a 400', (u) => {
      expect(() => parsePlayerQuery({ eventsUrl: u }, origin)).toThrow(ValidationError);
    });

    it('refuses every absolute URL when the request origin is unknown', () => {
      expect(() => parsePlayerQuery({ eventsUrl: 'https://tapedeck.example.com/x' })).toThrow(ValidationError);
      expect(() => parsePlayerQuery({ eventsUrl: 'http://same-origin.invalid/x' })).toThrow(ValidationError);
    });
  });
});
