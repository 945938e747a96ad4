import { Controller, Get, Module, Param, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { ErrorFilter } from './error.filter';
import { queryBoolean, queryInt, uuidParam } from './validation';
import { ZodValidationPipe } from './zod-validation.pipe';

class PathParams extends createZodDto(z.object({ recordingId: uuidParam, name: z.string().max(3, { message: 'must be at most 3 characters' }) })) {}
class ListQuery extends createZodDto(z.object({ limit: queryInt(1, 100, 50), signed: queryBoolean(false) })) {}

@Controller()
class TestController {
  @Get('r/:recordingId/:name')
  get(@Query() query: ListQuery, @Param() params: PathParams) {
    return { query, params };
  }

  @Get('raw/:id')
  raw(@Param('id') id: string, @Query() query: Record<string, unknown>) {
    return { id, query };
  }
}

describe('ZodValidationPipe', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    @Module({ controllers: [TestController] })
    class TestModule {}
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new ErrorFilter());
    app.useGlobalPipes(new ZodValidationPipe());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  const get = async (url: string) => {
    const r = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url });
    return { status: r.statusCode, body: r.json() };
  };
  const id = '550E8400-E29B-41D4-A716-446655440000';

  it('hands the handler the parsed DTOs', async () => {
    expect(await get(`/r/${id}/abc?limit=7&signed=1&other=x`)).toEqual({
      status: 200,
      body: { query: { limit: 7, signed: true }, params: { recordingId: id.toLowerCase(), name: 'abc' } },
    });
  });

  it('names each path parameter on its own, in the DTO order', async () => {
    expect((await get('/r/nope/abcd')).body).toEqual({
      error: 'validation_failed',
      message: 'Invalid recordingId: must be a UUID',
      issues: [{ path: '', message: 'must be a UUID' }],
    });
    expect((await get(`/r/${id}/abcd`)).body.message).toBe('Invalid name: must be at most 3 characters');
  });

  it('reads a query as parseWith does, a repeated parameter included', async () => {
    expect((await get(`/r/${id}/abc?limit=1&limit=2`)).body).toEqual({
      error: 'validation_failed',
      message: 'Invalid query: limit: must be given once',
      issues: [{ path: 'limit', message: 'must be given once' }],
    });
  });

  it('reports a bad path before a bad query when the handler lists the query first', async () => {
    expect((await get('/r/nope/abc?limit=0')).body.message).toBe('Invalid recordingId: must be a UUID');
  });

  it('leaves parameters that are not DTOs as they came', async () => {
    expect(await get('/raw/x?a=1&a=2')).toEqual({ status: 200, body: { id: 'x', query: { a: ['1', '2'] } } });
  });
});
