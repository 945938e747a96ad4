// /openapi.json as a client generator or a traffic validator reads it: the parameters carry their
// documented bounds in their schemas, not only in prose, every status a route answers is declared, and
// the bodies it answers conform to the declared schemas.
import { randomUUID } from 'node:crypto';
import { testEnv } from '../harness/env';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { admin } from './auth-fixtures';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  schema?: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, unknown>;
  security?: Record<string, unknown>[];
}
interface OpenApi {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, unknown>> };
}

let doc: OpenApi;

type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
};

/** Where `value` breaks `schema`: the subset of OpenAPI 3.0 schemas the document uses. A schema that only gives an example describes nothing. */
function violations(schema: Schema, value: unknown, at = '$'): string[] {
  if (schema.$ref) return violations(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as Schema, value, at);
  if (schema.oneOf) return schema.oneOf.filter((s) => violations(s, value, at).length === 0).length === 1 ? [] : [`${at}: not exactly one of oneOf`];
  if (!schema.type) return [`${at}: the schema declares no type (an example alone?)`];
  if (value === null) return schema.nullable ? [] : [`${at}: null`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in enum`];
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [`${at}: not an object`];
      const v = value as Record<string, unknown>;
      const out = (schema.required ?? []).filter((k) => !(k in v)).map((k) => `${at}.${k}: required, missing`);
      for (const [k, x] of Object.entries(v)) {
        const sub = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
        if (sub) out.push(...violations(sub, x, `${at}.${k}`));
        else if (schema.additionalProperties === false) out.push(`${at}.${k}: not allowed`);
      }
      return out;
    }
    case 'array':
      return Array.isArray(value) ? value.flatMap((x, i) => violations(schema.items!, x, `${at}[${i}]`)) : [`${at}: not an array`];
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || (schema.type === 'integer' && !Number.isInteger(value))) return [`${at}: not an ${schema.type}`];
      return (schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum) ? [`${at}: ${value} out of range`] : [];
    case 'string':
      if (typeof value !== 'string') return [`${at}: not a string`];
      if (schema.pattern && !new RegExp(schema.pattern).test(value)) return [`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`];
      return schema.format === 'uuid' && !/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(value) ? [`${at}: not a uuid`] : [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: not a boolean`];
    default:
      return [`${at}: unknown type ${schema.type}`];
  }
}

/** How `r` breaks what the operation declares for its status: the status, the content type, the JSON body's schema. */
function conformance(method: string, path: string, r: Res): string[] {
  const declared = doc.paths[path][method].responses[String(r.status)] as { content?: Record<string, { schema?: Schema }> } | undefined;
  if (!declared) return [`status ${r.status} not declared`];
  const type = (r.headers.get('content-type') ?? '').split(';')[0];
  const content = declared.content?.[type];
  if (!content) return [`${type} not declared for ${r.status}`];
  return type === 'application/json' && content.schema ? violations(content.schema, r.json()) : [];
}

beforeAll(async () => {
  doc = (await api('/openapi.json')).json<OpenApi>();
});

const param = (method: string, path: string, name: string) => doc.paths[path]?.[method]?.parameters?.find((p) => p.name === name);

describe('the document', () => {
  it('is OpenAPI 3.0 and reports the API version every response carries', async () => {
    expect(doc.openapi).toMatch(/^3\.0\.\d+$/);
    const r = await api('/healthz');
    expect(r.headers.get('x-tapedeck-api-version')).toBe(doc.info.version);
  });

  it('declares every path parameter of each path, required', () => {
    const missing = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((n) => !op.parameters?.some((p) => p.in === 'path' && p.name === n && p.required)).map((n) => `${method} ${path}: ${n}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it('gives every operation a unique operationId that client generators accept as an identifier', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, o]) => Object.entries(o).map(([method, op]) => ({ at: `${method} ${path}`, id: op.operationId })));
    expect(ops.filter((o) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.id ?? ''))).toEqual([]);
    const ids = ops.map((o) => o.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    // The older alias of the events endpoint is told apart from it.
    expect(doc.paths['/recordings/{recordingId}/events'].post.operationId).toBe('IngestionController_ingest');
    expect(doc.paths['/recordings/{recordingId}/ingest'].post.operationId).toBe('IngestionController_ingest_alias1');
  });

  it('names only security schemes it defines, and describes the API keys as what they are', () => {
    const used = Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op.security ?? []).flatMap((s) => Object.keys(s))));
    expect([...new Set(used)].filter((s) => !(s in doc.components.securitySchemes))).toEqual([]);
    // Keys are opaque public_key_svc_* / secret_key_svc_* strings, not JWTs.
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.bearer.bearerFormat).not.toBe('JWT');
  });

  it.each([
    ['/recordings/{recordingId}/events'],
    ['/recordings/{recordingId}/ingest'],
    ['/recordings/{recordingId}/metadata'],
    ['/ingest'],
  ])('POST %s declares the key in ?token= as an alternative to Bearer', (path) => {
    expect(doc.components.securitySchemes.token).toEqual(expect.objectContaining({ type: 'apiKey', in: 'query', name: 'token' }));
    expect(doc.paths[path].post.security).toEqual(expect.arrayContaining([{ bearer: [] }, { token: [] }]));
  });
});

describe('parameters', () => {
  const LISTINGS = ['/recordings', '/replays/{groupingProp}'];
  const REPLAY_READS = ['/replays/{groupingProp}/{replayValue}', '/replays/{groupingProp}/{replayValue}/events'];
  const SCREENSHOTS = ['screenshot', 'screenshot.png', 'screenshot.jpeg', 'screenshot.jpg', 'screenshot.webp'].map((s) => `/recordings/{recordingId}/${s}`);
  const PLAYERS = ['player', 'player.html', 'preview'].map((s) => `/recordings/{recordingId}/${s}`);

  it.each(LISTINGS)('%s: limit 1-100 (default 50), offset from 0 (default 0), includeSignedUrls a boolean word', (path) => {
    expect(param('get', path, 'limit')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } });
    expect(param('get', path, 'offset')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } });
    expect(param('get', path, 'includeSignedUrls')).toMatchObject({ in: 'query', schema: { type: 'string', enum: ['true', 'false', '1', '0'] } });
  });

  it.each([...REPLAY_READS, '/replays/{groupingProp}'])('%s: groupingProp 1-100 and replayValue 1-500 characters', (path) => {
    expect(param('get', path, 'groupingProp')).toMatchObject({ in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 100 } });
    if (path.includes('{replayValue}')) {
      expect(param('get', path, 'replayValue')).toMatchObject({ in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 500 } });
    }
  });

  it.each(SCREENSHOTS)('%s: width and height 1-4096, quality 1-100 (default 80)', (path) => {
    expect(param('get', path, 'width')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 4096 } });
    expect(param('get', path, 'height')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 4096 } });
    expect(param('get', path, 'quality')).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 80 } });
    expect(param('get', path, 'time')).toMatchObject({ in: 'query', schema: { type: 'string', maxLength: 64 } });
  });

  it.each(PLAYERS)('%s: speed 0.25-4 (default 1)', (path) => {
    expect(param('get', path, 'speed')).toMatchObject({ in: 'query', schema: { type: 'number', minimum: 0.25, maximum: 4, default: 1 } });
    expect(param('get', path, 'time')).toMatchObject({ in: 'query', schema: { type: 'string', maxLength: 64 } });
  });

  it.each(['/replay', '/replays'])('%s: the metadata filters are deepObject parameters, as on the listing', (path) => {
    const names = doc.paths[path].get.parameters!.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['metadata', 'meta']));
    expect(names.filter((n) => n.includes('<'))).toEqual([]);
    expect(param('get', path, 'metadata')).toEqual(param('get', '/recordings', 'metadata'));
  });
});

describe('statuses', () => {
  const id = randomUUID();
  const json = (key: string, body: string, headers: Record<string, string> = {}) => ({ method: 'POST', key, headers: { 'content-type': 'application/json', ...headers }, body });
  const cases: [string, string, string, () => Promise<Res>][] = [
    ['a recordingId that is not a UUID', 'get', '/recordings/{recordingId}/events', () => api('/recordings/not-a-uuid/events', { key: testEnv().secretKey })],
    ['a recordingId that is not a UUID', 'delete', '/recordings/{recordingId}', () => api('/recordings/not-a-uuid', { method: 'DELETE', key: testEnv().secretKey })],
    ['metadata over 1 MiB', 'post', '/recordings/{recordingId}/metadata', () => api(`/recordings/${id}/metadata`, json(testEnv().publicKey, JSON.stringify({ a: 'x'.repeat(1024 * 1024) })))],
    ['metadata as a form', 'post', '/recordings/{recordingId}/metadata', () => api(`/recordings/${id}/metadata`, { ...json(testEnv().publicKey, 'a=b'), headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
    ['metadata in an unknown coding', 'post', '/recordings/{recordingId}/metadata', () => api(`/recordings/${id}/metadata`, json(testEnv().publicKey, '{"a":"b"}', { 'content-encoding': 'compress' }))],
    ['an admin body over 64 KiB', 'post', '/admin/tenants', () => api('/admin/tenants', json(testEnv().adminToken, JSON.stringify({ id: 'x'.repeat(70_000) })))],
    ['an admin body as text', 'patch', '/admin/tenants/{tenantId}', () => api('/admin/tenants/nobody', { ...json(testEnv().adminToken, 'x'), method: 'PATCH', headers: { 'content-type': 'text/html' } })],
    ['an unknown player asset', 'get', '/assets/{name}', () => api('/assets/nope.js')],
  ];

  it.each(cases)('%s: %s %s answers a declared status', async (_what, method, path, send) => {
    const r = await send();
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(doc.paths[path][method].responses)).toContain(String(r.status));
  });

  // Each of these reads a store that can be down (JetStream or ClickHouse): 503 with Retry-After,
  // before anything is sent (docs/architecture.md, docs/reliability.md).
  it.each([
    '/recordings/{recordingId}/events',
    '/replays/{groupingProp}/{replayValue}',
    '/replays/{groupingProp}/{replayValue}/events',
    '/replays/{groupingProp}',
    '/replay',
    '/recordings',
    '/statistics',
  ])('GET %s declares 503', (path) => {
    expect(Object.keys(doc.paths[path].get.responses)).toContain('503');
  });
});

describe('success bodies', () => {
  const id = randomUUID();
  const value = `oa-${id}`;
  const secret = () => testEnv().secretKey;
  const cases: [string, string, () => Promise<Res>][] = [
    ['post', '/recordings/{recordingId}/events', () => postEvents(id, sampleEvents(5, Date.now() - 60_000))],
    ['post', '/recordings/{recordingId}/metadata', () => api(`/recordings/${id}/metadata`, { method: 'POST', key: testEnv().publicKey, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ openapiRun: value, n: 1 }) })],
    ['get', '/recordings', () => pollUntil(() => api(`/recordings?metadata[openapiRun]=${value}&includeSignedUrls=true`, { key: secret() }), (r) => r.json().recordings?.length === 1)],
    ['get', '/recordings/{recordingId}', () => api(`/recordings/${id}?includeSignedUrls=true`, { key: secret() })],
    ['get', '/recordings/{recordingId}/events', () => api(`/recordings/${id}/events`, { key: secret() })],
    ['get', '/replays/{groupingProp}', () => api('/replays/openapiRun?includeSignedUrls=true&limit=100', { key: secret() })],
    ['get', '/replays/{groupingProp}/{replayValue}', () => api(`/replays/openapiRun/${value}`, { key: secret() })],
    ['get', '/replays/{groupingProp}/{replayValue}/events', () => api(`/replays/openapiRun/${value}/events`, { key: secret() })],
    ['get', '/replay', () => api(`/replay?metadata[openapiRun]=${value}`, { key: secret() })],
    ['get', '/statistics', () => api(`/statistics?metadata[openapiRun]=${value}&groupBy=n`, { key: secret() })],
    ['get', '/healthz', () => api('/healthz')],
  ];

  // In order: the reads need the recording written and projected.
  it.each(cases)('%s %s answers what it declares', async (method, path, send) => {
    const r = await send();
    expect(r.status).toBeLessThan(300);
    expect(conformance(method, path, r)).toEqual([]);
  });

  describe('admin API', () => {
    const tenant = `oa-${id}`;
    const secret = 'openapi-signing-secret-0123456789';
    const cases: [number, string, string, () => Promise<Res>][] = [
      [201, 'post', '/admin/tenants', () => admin('POST', '/tenants', { id: tenant, name: 'OpenAPI', retentionDays: 30 })],
      [200, 'post', '/admin/tenants', () => admin('POST', '/tenants', { id: tenant })],
      [200, 'patch', '/admin/tenants/{tenantId}', () => admin('PATCH', `/tenants/${tenant}`, { retentionDays: 7 })],
      [200, 'patch', '/admin/tenants/{tenantId}', () => admin('PATCH', `/tenants/${tenant}`, { retentionDays: null })],
      [200, 'get', '/admin/tenants', () => admin('GET', '/tenants')],
      [201, 'post', '/admin/tenants/{tenantId}/keys', () => admin('POST', `/tenants/${tenant}/keys`, { kind: 'public', allowedOrigins: ['https://app.example.test'] })],
      [201, 'post', '/admin/tenants/{tenantId}/keys', () => admin('POST', `/tenants/${tenant}/keys`, { kind: 'secret' })],
      [200, 'get', '/admin/tenants/{tenantId}/keys', () => admin('GET', `/tenants/${tenant}/keys`)],
      [201, 'post', '/admin/tenants/{tenantId}/signing-keys', () => admin('POST', `/tenants/${tenant}/signing-keys`, { keyId: 'generated' })],
      [201, 'post', '/admin/tenants/{tenantId}/signing-keys', () => admin('POST', `/tenants/${tenant}/signing-keys`, { keyId: 'given.1', secret })],
      [200, 'post', '/admin/tenants/{tenantId}/signing-keys', () => admin('POST', `/tenants/${tenant}/signing-keys`, { keyId: 'given.1', secret })],
      [200, 'get', '/admin/tenants/{tenantId}/signing-keys', () => admin('GET', `/tenants/${tenant}/signing-keys`)],
    ];

    // In order: each builds on the tenant the first creates.
    it.each(cases)('%s: %s %s answers what it declares', async (status, method, path, send) => {
      const r = await send();
      expect(r.status).toBe(status);
      expect(conformance(method, path, r)).toEqual([]);
    });

    it('declares an object schema with typed properties for every success answer with a body', () => {
      const untyped = Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/admin/'))
        .flatMap(([path, ops]) =>
          Object.entries(ops).flatMap(([method, op]) =>
            Object.entries(op.responses as Record<string, { content?: Record<string, { schema?: Schema }> }>)
              .filter(([status]) => /^2/.test(status) && status !== '204')
              .filter(([, res]) => {
                const declared = res.content?.['application/json']?.schema;
                const schema = declared?.$ref ? (doc.components.schemas[declared.$ref.replace('#/components/schemas/', '')] as Schema) : declared;
                return schema?.type !== 'object' || !schema.properties || Object.values(schema.properties).some((p) => !p.type && !p.$ref);
              })
              .map(([status]) => `${method} ${path} ${status}`),
          ),
        );
      expect(untyped).toEqual([]);
    });
  });

  it('the replay carries the metadata and events it declares as required', () => {
    expect((doc.paths['/replays/{groupingProp}/{replayValue}'].get.responses['200'] as { content: Record<string, { schema: Schema }> }).content['application/json'].schema.required).toEqual(['metadata', 'events']);
  });
});

describe('request bodies', () => {
  const events = [{ type: 3, timestamp: 1700000000000, data: { source: 1 } }];
  const body = (path: string) => (doc.paths[path].post as unknown as { requestBody: { content: Record<string, { schema: Schema }> } }).requestBody.content;

  it.each([['/recordings/{recordingId}/events'], ['/ingest']])('%s: declares every JSON form the route stores, and text/plain (sendBeacon)', async (path) => {
    const content = body(path);
    expect(Object.keys(content)).toEqual(expect.arrayContaining(['application/json', 'text/plain', 'application/x-ndjson']));
    for (const form of [events, { events }]) {
      const id = randomUUID();
      const url = path === '/ingest' ? `/ingest?recordingId=${id}` : `/recordings/${id}/events`;
      for (const type of ['application/json', 'text/plain']) {
        expect((await api(url, { method: 'POST', key: testEnv().publicKey, headers: { 'content-type': type }, body: JSON.stringify(form) })).status).toBe(200);
        expect(violations(content[type].schema, form)).toEqual([]);
      }
    }
  });
});
