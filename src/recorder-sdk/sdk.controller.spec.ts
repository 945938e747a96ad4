import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ErrorFilter } from '../common/error.filter';
import { SDK_ASSET_DIR, SdkAssetService } from './sdk-asset.service';
import { SdkController } from './sdk.controller';
import { wrapOfficialClient } from './official-client-wrapper';

describe('SdkController', () => {
  let app: NestFastifyApplication;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sdk-'));
    writeFileSync(join(dir, 'recorder.js'), 'var Tapedeck=(()=>({}))();\n//# sourceMappingURL=recorder.js.map\n');
    @Module({ controllers: [SdkController], providers: [SdkAssetService, { provide: SDK_ASSET_DIR, useValue: dir }] })
    class TestModule {}
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new ErrorFilter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}) => app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers });

  it('serves the bundle as cacheable, cross-origin JavaScript with an ETag', async () => {
    const res = await get('/sdk/recorder.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(res.body).toContain('var Tapedeck');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const etag = String((await get('/sdk/recorder.js')).headers.etag);
    const res = await get('/sdk/recorder.js', { 'if-none-match': etag });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe(etag);
    expect((await get('/sdk/recorder.js', { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('answers 404 text/plain while the source map is not built, then serves it', async () => {
    const missing = await get('/sdk/recorder.js.map');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('text/plain; charset=utf-8');
    writeFileSync(join(dir, 'recorder.js.map'), '{"version":3}');
    const res = await get('/sdk/recorder.js.map');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it("serves rrweb's official browser client at /record.js, unchanged inside the option-name wrapper", async () => {
    const res = await get('/record.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const shipped = readFileSync(join(dirname(require.resolve('@rrweb/browser-client')), '..', 'umd', 'browser-client.min.js'), 'utf8');
    expect(res.body).toContain(shipped);
    expect(res.body).toBe(wrapOfficialClient(Buffer.from(shipped)).toString('utf8'));
    expect(res.body).toContain('rrwebBrowserClient');
  });
});
