import { Readable } from 'node:stream';
import { AppError } from './app-error';
import { acceptsGzip, sendJsonStream } from './stream-reply';

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br, zstd', true], // what Chromium sends
    ['gzip', true],
    ['x-gzip', true],
    ['br;q=1.0, gzip;q=0.8, *;q=0.1', true],
    ['*', true],
    ['GZIP', true],
    ['', false],
    [undefined, false],
    ['identity', false],
    ['br', false],
    ['gzip;q=0', false],
    ['gzip;q=0.000, *', false],
    ['*;q=0', false],
    ['deflate, *;q=0.5', true],
  ])('%p → %p', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('sendJsonStream', () => {
  function fakeReply(acceptEncoding?: string) {
    const headers: Record<string, string> = {};
    let sent: Readable | undefined;
    const reply = {
      request: { headers: { 'accept-encoding': acceptEncoding } },
      header: (k: string, v: string) => ((headers[k.toLowerCase()] = v), reply),
      getHeader: (k: string) => headers[k.toLowerCase()],
      send: (body: Readable) => ((sent = body), reply),
    };
    return { reply, headers, body: () => sent };
  }
  async function* failing(after: string[]) {
    yield* after.map((s) => Buffer.from(s));
    throw new AppError('not_found', 'Recording not found');
  }

  it.each([['gzip'], [undefined]])('rejects, before any header is set, when the read fails before its first byte (Accept-Encoding %p)', async (enc) => {
    const { reply, headers, body } = fakeReply(enc);
    await expect(sendJsonStream(reply as never, Readable.from(failing([])))).rejects.toMatchObject({ code: 'not_found' });
    expect(headers).toEqual({});
    expect(body()).toBeUndefined();
  });

  it('sends every chunk of a read that succeeds, the first included', async () => {
    const { reply, body } = fakeReply();
    await sendJsonStream(reply as never, Readable.from(['[1', ',2', ']'].map((s) => Buffer.from(s))));
    const chunks: Buffer[] = [];
    for await (const c of body()!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('[1,2]');
  });
});
