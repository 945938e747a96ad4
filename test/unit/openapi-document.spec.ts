// The OpenAPI document built from the controllers alone (their dependencies faked, no servers): every
// route Fastify registers is documented, and every parameter, body and answer a zod DTO declares is
// documented as that schema's JSON Schema, request side or response side.
import 'reflect-metadata';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { GUARDS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DECORATORS, type OpenAPIObject } from '@nestjs/swagger';
import type { ZodDto } from 'nestjs-zod';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { AppModule } from '../../src/app.module';
import { buildOpenApiDocument } from '../../src/common/openapi/openapi-document';
import { APP_CONFIG, loadConfig } from '../../src/config/config';
import { CONSOLE_PATHS } from '../../src/console/console-pages.controller';

type Json = Record<string, unknown>;

/** Every controller of the application (all roles). */
function controllersOf(m: Type | DynamicModule, seen = new Set<unknown>()): Type[] {
  const mod = 'module' in m ? m.module : m;
  if (seen.has(m)) return [];
  seen.add(m);
  const dynamic: Partial<DynamicModule> = 'module' in m ? m : {};
  const imports = [...(Reflect.getMetadata('imports', mod) ?? []), ...(dynamic.imports ?? [])] as (Type | DynamicModule)[];
  return [...(Reflect.getMetadata('controllers', mod) ?? []), ...(dynamic.controllers ?? []), ...imports.flatMap((i) => controllersOf(i, seen))];
}

/** A stand-in for any dependency: every property is a function answering another stand-in. */
const fake = (): unknown => new Proxy(function () {}, { get: (_t, k) => (k === 'then' ? undefined : fake()), apply: () => fake() });

/** Providers for what the controllers and their guards inject: the configuration, everything else faked. */
function fakeDependencies(classes: Type[]) {
  const tokens = new Set<unknown>();
  const guards = classes.flatMap((c) => [
    ...(Reflect.getMetadata(GUARDS_METADATA, c) ?? []),
    ...Object.getOwnPropertyNames(c.prototype).flatMap((k) => Reflect.getMetadata(GUARDS_METADATA, c.prototype[k]) ?? []),
  ]) as Type[];
  for (const c of [...classes, ...guards]) {
    for (const t of Reflect.getMetadata('design:paramtypes', c) ?? []) tokens.add(t);
    for (const { param } of Reflect.getMetadata('self:paramtypes', c) ?? []) tokens.add(param);
  }
  tokens.delete(Reflector);
  tokens.delete(APP_CONFIG);
  return [...new Set(guards), { provide: APP_CONFIG, useValue: cfg }, ...[...tokens].map((provide) => ({ provide: provide as Type, useValue: fake() }))];
}

const isZodDto = (t: unknown): t is ZodDto<z.ZodType> => typeof t === 'function' && (t as Partial<ZodDto>).isZodDto === true;

/** A schema with every $ref replaced by what it names (in the document, or in zod's own definitions). */
function inline(schema: unknown, defs: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, defs));
  if (!schema || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as Json;
  if (typeof $ref === 'string') return inline({ ...(defs[$ref.split('/').pop()!] as Json), ...rest }, defs);
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v, defs)]));
}

/** What zod itself makes of a DTO, for the side it documents (responses use the DTO's Output class). */
function zodSchema(dto: ZodDto<z.ZodType>): unknown {
  const {
    definitions,
    $schema: _,
    ...json
  } = z.toJSONSchema(dto.schema, { target: 'openapi-3.0', io: dto.name.endsWith('_Output') ? 'output' : 'input' }) as Json;
  return inline(json, (definitions ?? {}) as Json);
}

let app: NestFastifyApplication;
let doc: OpenAPIObject;
const routes: string[] = [];
const cfg = loadConfig({ TAPEDECK_ROLE: 'all', TAPEDECK_ADMIN_TOKEN: 'x'.repeat(32) });
const controllers = controllersOf(AppModule.forRoot(cfg));

beforeAll(async () => {
  @Module({ controllers, providers: fakeDependencies(controllers) })
  class DocumentModule {}
  app = await NestFactory.create<NestFastifyApplication>(DocumentModule, new FastifyAdapter(), { logger: false });
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (r) => {
      for (const method of [r.method].flat()) if (method !== 'HEAD') routes.push(`${method.toLowerCase()} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    });
  doc = buildOpenApiDocument(app);
  await app.init();
});
afterAll(() => app?.close());

const components = () => (doc.components?.schemas ?? {}) as Json;
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ at: `${method} ${path}`, op: op as Json })));

/** The handlers of the controllers, with the operations the document gives them (a handler on several paths has several). */
function handlers() {
  return controllers.flatMap((c) =>
    Object.getOwnPropertyNames(c.prototype)
      .filter((name) => name !== 'constructor' && Reflect.getMetadata('method', c.prototype[name]) !== undefined)
      .map((name) => ({
        c,
        name,
        ops: operations().filter(({ op }) => op.operationId === `${c.name}_${name}` || String(op.operationId).startsWith(`${c.name}_${name}_alias`)),
      })),
  );
}

describe('the OpenAPI document', () => {
  it('documents every route the application serves, and nothing else', () => {
    const documented = operations().map((o) => o.at);
    // The console's HTML pages, its bundles and `/` are the web app, not the API (docs/console.md).
    const consolePages = ['get /', ...CONSOLE_PATHS.map((p) => `get /${p.replace(/:([A-Za-z]+)/g, '{$1}')}`), 'get /console/assets/{name}'];
    expect(routes.filter((r) => !documented.includes(r))).toEqual(consolePages);
    expect(documented.filter((o) => !routes.includes(o))).toEqual([]);
  });

  it('declares METRICS_TOKEN on /metrics and /readyz, as optional: it applies only when the operator sets it', () => {
    expect(doc.components?.securitySchemes?.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of ['/metrics', '/readyz']) expect(doc.paths[path].get?.security).toEqual([{ metricsToken: [] }, {}]);
    expect(Object.keys(doc.paths['/metrics'].get?.responses ?? {}).sort()).toEqual(['200', '401']);
    expect(doc.paths['/readyz'].get?.responses['401']).toBeUndefined(); // probes get their status code whatever they send
  });

  it('is OpenAPI 3.0 throughout: no type lists, no nestjs-zod markers, every $ref resolves', () => {
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/"type":\[/);
    expect(text).not.toContain('x-nestjs_zod');
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.filter((r) => !(r.startsWith('#/components/schemas/') && r.slice('#/components/schemas/'.length) in components()))).toEqual([]);
  });

  it('declares the media types and schema of every success answer with a body', () => {
    const bare = operations().flatMap(({ at, op }) =>
      Object.entries(op.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)
        .filter(([status, r]) => /^2/.test(status) && status !== '204' && (!r.content || Object.values(r.content).some((c) => !c.schema)))
        .map(([status]) => `${at} ${status}`),
    );
    expect(bare).toEqual([]);
  });

  it('documents every DTO-typed path and query parameter as its zod field (request side)', () => {
    const differ: unknown[] = [];
    for (const { c, name, ops } of handlers()) {
      const args = Object.entries((Reflect.getMetadata(ROUTE_ARGS_METADATA, c, name) ?? {}) as Record<string, { index: number; data?: string }>);
      const types = Reflect.getMetadata('design:paramtypes', c.prototype, name) as unknown[];
      for (const [key, { index, data }] of args) {
        const kind = Number(key.split(':')[0]);
        const dto = types[index];
        if ((kind !== RouteParamtypes.QUERY && kind !== RouteParamtypes.PARAM) || data !== undefined || !isZodDto(dto)) continue;
        for (const [field, schema] of Object.entries((dto.schema as z.ZodObject).shape)) {
          const { description, ...expected } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }) as Json;
          delete expected.$schema;
          const where = kind === RouteParamtypes.QUERY ? 'query' : 'path';
          for (const { at, op } of ops) {
            const p = (op.parameters as Json[]).find((x) => x.name === field && x.in === where);
            const want = { in: where, name: field, required: !schema.safeParse(undefined).success, description, schema: expected };
            const got = p && { in: p.in, name: p.name, required: p.required, description: p.description, schema: p.schema };
            if (!isDeepStrictEqual(JSON.parse(JSON.stringify(got ?? null)), JSON.parse(JSON.stringify(want)))) differ.push({ at, field, got, want });
          }
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it('documents every DTO body and answer as its zod schema (request side, response side)', () => {
    const differ: unknown[] = [];
    const content = (x: unknown) => inline((x as { content?: Record<string, { schema?: unknown }> })?.content?.['application/json']?.schema, components());
    let compared = 0;
    for (const { c, name, ops } of handlers()) {
      const handler = c.prototype[name];
      const answers = (Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}) as Record<string, { type?: unknown }>;
      const body = ((Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) ?? []) as { in: string; type?: unknown }[]).find((p) => p.in === 'body');
      for (const { at, op } of ops) {
        for (const [status, { type }] of Object.entries(answers)) {
          if (!isZodDto(type)) continue;
          compared++;
          const got = content((op.responses as Json)[status]);
          if (!isDeepStrictEqual(got, zodSchema(type))) differ.push({ at, status, got, want: zodSchema(type) });
        }
        if (isZodDto(body?.type)) {
          compared++;
          const got = content(op.requestBody);
          if (!isDeepStrictEqual(got, zodSchema(body.type))) differ.push({ at, body: true, got, want: zodSchema(body.type) });
        }
      }
    }
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(30);
  });
});
