import { HttpException, NotFoundException } from '@nestjs/common';
import { AppError, RateLimited } from './app-error';
import { describeError, isClientAbort } from './error.filter';

describe('describeError', () => {
  it("answers Fastify's body limit, as Nest hands it over (an HttpException of its message), with the documented text", () => {
    expect(describeError(new HttpException('Request body is too large', 413))).toMatchObject({
      status: 413,
      contentType: 'text/plain; charset=utf-8',
      body: 'Request body is larger than the limit for this endpoint',
    });
    expect(describeError({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'Request body is too large' }).body).toBe(
      'Request body is larger than the limit for this endpoint',
    );
  });

  it("names the Content-Type sent (bounded, printable) and the accepted ones in a 415 of Fastify's content-type check", () => {
    const accepted = 'send application/json (event ingestion also takes application/x-ndjson, application/ndjson or text/plain)';
    expect(describeError(new HttpException('Unsupported Media Type', 415), 'text/xml; charset=utf-8')).toMatchObject({
      status: 415,
      body: `Unsupported Content-Type "text/xml; charset=utf-8": ${accepted}`,
    });
    expect(describeError({ statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', message: 'Unsupported Media Type' }).body).toBe(
      `Unsupported Content-Type (none sent): ${accepted}`,
    );
    expect(describeError(new HttpException('Unsupported Media Type', 415), `a/${'b'.repeat(300)}\u0007`).body).toBe(
      `Unsupported Content-Type "a/${'b'.repeat(98)}…": ${accepted}`,
    );
  });

  it('names the Bearer scheme on a 401 only', () => {
    expect(describeError(new AppError('unauthorized', 'Missing credentials')).headers).toEqual({ 'www-authenticate': 'Bearer realm="tapedeck"' });
    expect(describeError(new AppError('forbidden', 'Presigned link has expired')).headers).toEqual({});
    expect(describeError(new RateLimited('slow down', 1)).headers).toEqual({ 'Retry-After': '1' });
  });

  it("keeps the application's own 413 messages, which say what was too large", () => {
    expect(describeError(new AppError('payload_too_large', 'Event at index 3 exceeds 100 bytes'))).toMatchObject({
      status: 413,
      body: 'Event at index 3 exceeds 100 bytes',
    });
  });

  it('does not repeat a token, signature or key of the URL in the 404 of an unknown route', () => {
    // What Nest raises for a path no route matches: the message holds the whole URL, query included.
    const url = '/recordings/x/events/?tenantId=t&expires=9&keyId=k&signature=0a1b2c&token=public_key_svc_AbCd';
    const r = describeError(new NotFoundException(`Cannot GET ${url}`));
    expect(r).toMatchObject({ status: 404, contentType: 'text/plain; charset=utf-8' });
    expect(r.body).toMatch(/^Cannot GET \/recordings\/x\/events\//);
    expect(r.body).not.toMatch(/0a1b2c|AbCd/);
  });

  it("never puts an unknown error's message in a 500", () => {
    const r = describeError(new Error('secret_key_svc_leak at /srv/app.js:1'));
    expect(r.status).toBe(500);
    expect(r.body).not.toMatch(/secret|app\.js/);
    expect(r.errorId).toBeDefined();
  });
});

describe('isClientAbort', () => {
  const aborted = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  const premature = () => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
  it('recognises a body cut short by the client, directly or through a decompression pipeline', () => {
    expect(isClientAbort(aborted())).toBe(true);
    expect(isClientAbort(premature(), { raw: { destroyed: true } })).toBe(true);
    expect(isClientAbort(premature(), { raw: { destroyed: false, socket: { destroyed: true } } })).toBe(true);
  });
  it('leaves every other failure a server error', () => {
    expect(isClientAbort(premature(), { raw: { destroyed: false, socket: { destroyed: false } } })).toBe(false);
    expect(isClientAbort(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false); // an upstream connection
    expect(isClientAbort(new Error('aborted'))).toBe(false);
    expect(isClientAbort(undefined)).toBe(false);
    expect(isClientAbort('aborted')).toBe(false);
  });
});
