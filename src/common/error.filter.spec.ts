import { HttpException } from '@nestjs/common';
import { AppError } from './app-error';
import { describeError } from './error.filter';

describe('describeError', () => {
  it('answers Fastify\'s body limit, as Nest hands it over (an HttpException of its message), with the documented text', () => {
    expect(describeError(new HttpException('Request body is too large', 413))).toMatchObject({
      status: 413,
      contentType: 'text/plain; charset=utf-8',
      body: 'Request body is larger than the limit for this endpoint',
    });
    expect(describeError({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'Request body is too large' }).body).toBe('Request body is larger than the limit for this endpoint');
  });

  it('keeps the application\'s own 413 messages, which say what was too large', () => {
    expect(describeError(new AppError('payload_too_large', 'Event at index 3 exceeds 100 bytes'))).toMatchObject({ status: 413, body: 'Event at index 3 exceeds 100 bytes' });
  });

  it('never puts an unknown error\'s message in a 500', () => {
    const r = describeError(new Error('secret_key_svc_leak at /srv/app.js:1'));
    expect(r.status).toBe(500);
    expect(r.body).not.toMatch(/secret|app\.js/);
    expect(r.errorId).toBeDefined();
  });
});
