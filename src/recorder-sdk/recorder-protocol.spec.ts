// Pure logic of the browser recorder (no DOM): the wire format, status outcomes, CSP violations,
// backoff and ids.
import fc from 'fast-check';
import { Backoff } from './browser/backoff';
import { isUuid, uuid } from './browser/ids';
import { batchFrame, blockedByPolicy, classifyStatus, eventUrls, isServerUrl, parseServerFrame, slowLinkMs, utf8Length } from './browser/protocol';

describe('protocol', () => {
  it('builds batch frames as in docs/websocket.md', () => {
    const events = [{ type: 5, timestamp: 1, data: { tag: 'recording-meta' }, sequenceId: 1 }];
    expect(JSON.parse(batchFrame('id-1', JSON.stringify(events)))).toEqual({ type: 'batch', batch: 'id-1', events });
  });

  it('parses server frames', () => {
    expect(parseServerFrame('{"type":"ack","batch":"b","events":3,"duplicate":false}')).toEqual({ type: 'ack', batch: 'b' });
    expect(parseServerFrame('{"type":"pong"}')).toEqual({ type: 'pong' });
    expect(parseServerFrame('{"type":"watch","seconds":15}')).toEqual({ type: 'watch', seconds: 15 });
    expect(parseServerFrame('{"type":"watch","seconds":9999}')).toEqual({ type: 'watch', seconds: 300 });
    expect(parseServerFrame('{"type":"watch","seconds":0}')).toEqual({ type: 'other' });
    expect(parseServerFrame('{"type":"watch"}')).toEqual({ type: 'other' });
    expect(parseServerFrame('{"type":"error","status":503,"message":"x","batch":"b"}')).toEqual({
      type: 'error',
      status: 503,
      message: 'x',
      batch: 'b',
    });
    expect(parseServerFrame('{"type":"error","status":400,"message":"bad"}')).toEqual({ type: 'error', status: 400, message: 'bad' });
    expect(parseServerFrame('{"type":"error","status":429,"message":"m","batch":"b","retryAfter":3}')).toEqual({
      type: 'error',
      status: 429,
      message: 'm',
      batch: 'b',
      retryAfter: 3,
    });
    for (const bad of ['"3"', '-1', '0', 'null']) {
      expect(parseServerFrame(`{"type":"error","status":429,"message":"m","retryAfter":${bad}}`)).toEqual({ type: 'error', status: 429, message: 'm' });
    }
    expect(parseServerFrame('{"type":"upstream-result","ok":true}')).toEqual({ type: 'other' });
    expect(parseServerFrame('garbage')).toEqual({ type: 'other' });
    expect(parseServerFrame(new ArrayBuffer(2))).toEqual({ type: 'other' });
  });

  it.each([
    [200, 'ack'],
    [204, 'ack'],
    [400, 'drop'],
    [401, 'drop'],
    [413, 'drop'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'fallback'],
    [503, 'fallback'],
    [0, 'retry'],
  ])('status %i -> %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });

  it('measures UTF-8 bytes like Buffer.byteLength', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'))));
    expect(utf8Length('\ud83d')).toBe(3); // lone surrogate becomes U+FFFD
  });

  it.each([
    ['wss://rec.example.com/recordings/x/events/ws?token=k', 'https://rec.example.com', true],
    ['ws://127.0.0.1:4000/recordings/x/events/ws', 'http://127.0.0.1:4000', true],
    ['https://rec.example.com', 'https://rec.example.com', true],
    ['https://rec.example.com/recordings/x/events', 'https://rec.example.com/base', true],
    ['ws://rec.example.com/x', 'https://rec.example.com', false],
    ['wss://rec.example.com:8443/x', 'https://rec.example.com', false],
    ['https://cdn.example.com/a.js', 'https://rec.example.com', false],
    ['inline', 'https://rec.example.com', false],
    ['', 'https://rec.example.com', false],
  ])('isServerUrl(%s, %s) -> %s', (blocked, server, expected) => {
    expect(isServerUrl(blocked, server)).toBe(expected);
  });

  it('reads a CSP violation: sockets to the server blocked, all requests blocked, or nothing that matters', () => {
    const server = 'https://rec.example.com';
    const ev = (blockedURI: string, effectiveDirective = 'connect-src', disposition = 'enforce') => ({ blockedURI, effectiveDirective, disposition });
    expect(blockedByPolicy(ev('wss://rec.example.com/recordings/x/events/ws?token=k'), server)).toBe('websocket');
    expect(blockedByPolicy(ev('https://rec.example.com/recordings/x/events'), server)).toBe('all');
    expect(blockedByPolicy(ev('https://rec.example.com'), server)).toBe('all');
    expect(blockedByPolicy(ev('https://rec.example.com/logo.png', 'img-src'), server)).toBeNull();
    expect(blockedByPolicy(ev('wss://rec.example.com/x', 'connect-src', 'report'), server)).toBeNull();
    expect(blockedByPolicy(ev('https://other.example.com/x'), server)).toBeNull();
  });

  it('names the events endpoint, and the socket beside it with the key as its token', () => {
    expect(eventUrls('https://rec.example.com', 'a b', 'public_key_svc_k+1', true)).toEqual({
      http: 'https://rec.example.com/recordings/a%20b/events',
      websocket: 'wss://rec.example.com/recordings/a%20b/events/ws?token=public_key_svc_k%2B1&watch=1',
    });
    expect(eventUrls('http://127.0.0.1:4000', 'r', 'k', false)).toEqual({ http: 'http://127.0.0.1:4000/recordings/r/events', websocket: null });
  });

  it('waits longer for bytes still going up a slow link', () => {
    expect(slowLinkMs(0)).toBe(0);
    expect(slowLinkMs(-5)).toBe(0);
    expect(slowLinkMs(64 * 1024)).toBe(1000);
    expect(slowLinkMs(8 * 1024 * 1024)).toBe(128_000);
    fc.assert(fc.property(fc.nat(), fc.nat(), (a, b) => expect(slowLinkMs(a + b)).toBeGreaterThanOrEqual(slowLinkMs(a))));
  });
});

describe('Backoff', () => {
  it('grows from 250 ms to at most 10 s, with jitter, and resets', () => {
    const low = new Backoff(250, 10_000, () => 0);
    const high = new Backoff(250, 10_000, () => 0.999999);
    const lows = Array.from({ length: 10 }, () => low.next());
    const highs = Array.from({ length: 10 }, () => high.next());
    expect(lows[0]).toBe(250);
    expect(highs[0]).toBe(250);
    expect(highs[3]).toBe(2000);
    expect(Math.max(...highs)).toBe(10_000);
    for (const d of [...lows, ...highs]) expect(d).toBeGreaterThanOrEqual(250);
    expect(lows[9]).toBe(5000);
    high.reset();
    expect(high.next()).toBe(250);
  });
});

describe('ids', () => {
  it('makes v4 UUIDs with randomUUID, getRandomValues, or nothing', () => {
    expect(uuid({ randomUUID: () => '123e4567-e89b-42d3-a456-426614174000' })).toBe('123e4567-e89b-42d3-a456-426614174000');
    const viaBytes = uuid({ getRandomValues: (a) => a.fill(0xff) });
    expect(viaBytes).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    const ids = new Set(Array.from({ length: 100 }, () => uuid({})));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(isUuid(uuid())).toBe(true);
    expect(isUuid('nope')).toBe(false);
  });
});
