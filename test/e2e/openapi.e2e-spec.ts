// /openapi.json as a client generator or a traffic validator reads it: the parameters carry their
// documented bounds in their schemas, not only in prose, every status a route answers is declared, and
// the bodies it answers conform to the declared schemas. Every operation of the document is called: the
// requests conform to what it documents, its answers to what it declares, and each bound it documents
// on a parameter or a JSON body field is one the route enforces (a value past it is a 400 naming it).
import { randomUUID } from 'node:crypto';
import { testEnv } from '../harness/env';
import { api, Res, sampleEvents } from '../harness/http';
import {
  atBounds,
  Call,
  conformance,
  loadDocument,
  OpenApi,
  pastBounds,
  requestViolations,
  resolve,
  Schema,
  send,
  urlOf,
  violations,
  withParam,
} from './openapi-contract';

let doc: OpenApi;

beforeAll(async () => {
  doc = await loadDocument();
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
        [...path.matchAll(/\{([^}]+)\}/g)]
          .map((m) => m[1])
          .filter((n) => !op.parameters?.some((p) => p.in === 'path' && p.name === n && p.required))
          .map((n) => `${method} ${path}: ${n}`),
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

  it.each([['/recordings/{recordingId}/events'], ['/recordings/{recordingId}/ingest'], ['/recordings/{recordingId}/metadata'], ['/ingest']])(
    'POST %s declares the key in ?token= as an alternative to Bearer',
    (path) => {
      expect(doc.components.securitySchemes.token).toEqual(expect.objectContaining({ type: 'apiKey', in: 'query', name: 'token' }));
      expect(doc.paths[path].post.security).toEqual(expect.arrayContaining([{ bearer: [] }, { token: [] }]));
    },
  );
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

  it('/recordings: startedAfter and startedBefore optional times, epoch ms or ISO 8601 with a zone', () => {
    for (const name of ['startedAfter', 'startedBefore']) {
      const p = param('get', '/recordings', name);
      expect(p).toMatchObject({ in: 'query', schema: { type: 'string' } });
      expect(p?.required).toBeFalsy();
      expect(JSON.stringify(p)).toMatch(/startedAt[\s\S]*epoch milliseconds or ISO 8601/);
    }
  });

  it('/recordings: live an optional boolean word, and every recording says whether it is live', () => {
    const live = param('get', '/recordings', 'live');
    expect(live).toMatchObject({ in: 'query', schema: { type: 'string', enum: ['true', 'false', '1', '0'] } });
    expect(live?.required).toBeFalsy();
    expect(live?.schema?.default).toBeUndefined();
    const recording = doc.components.schemas.Recording as { properties: Record<string, unknown>; required: string[] };
    expect(recording.properties.live).toMatchObject({ type: 'boolean' });
    expect(recording.required).toEqual(expect.arrayContaining(['live', 'lastActivityAt']));
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

  it.each(PLAYERS)('%s: speed 0.25-4 (default 1); live a boolean word (default false) that refuses a time', (path) => {
    expect(param('get', path, 'speed')).toMatchObject({ in: 'query', schema: { type: 'number', minimum: 0.25, maximum: 4, default: 1 } });
    expect(param('get', path, 'time')).toMatchObject({ in: 'query', schema: { type: 'string', maxLength: 64 } });
    const live = param('get', path, 'live');
    expect(live).toMatchObject({ in: 'query', schema: { type: 'string', enum: ['true', 'false', '1', '0'], default: 'false' } });
    expect(JSON.stringify(live)).toMatch(/Server-Sent Events[\s\S]*With time: 400/);
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
  const json = (key: string, body: string, headers: Record<string, string> = {}) => ({
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const cases: [string, string, string, () => Promise<Res>][] = [
    ['a recordingId that is not a UUID', 'get', '/recordings/{recordingId}/events', () => api('/recordings/not-a-uuid/events', { key: testEnv().secretKey })],
    [
      'a recordingId that is not a UUID',
      'delete',
      '/recordings/{recordingId}',
      () => api('/recordings/not-a-uuid', { method: 'DELETE', key: testEnv().secretKey }),
    ],
    [
      'metadata over 1 MiB',
      'post',
      '/recordings/{recordingId}/metadata',
      () => api(`/recordings/${id}/metadata`, json(testEnv().publicKey, JSON.stringify({ a: 'x'.repeat(1024 * 1024) }))),
    ],
    [
      'metadata as a form',
      'post',
      '/recordings/{recordingId}/metadata',
      () => api(`/recordings/${id}/metadata`, { ...json(testEnv().publicKey, 'a=b'), headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    ],
    [
      'metadata in an unknown coding',
      'post',
      '/recordings/{recordingId}/metadata',
      () => api(`/recordings/${id}/metadata`, json(testEnv().publicKey, '{"a":"b"}', { 'content-encoding': 'compress' })),
    ],
    [
      'an admin body over 64 KiB',
      'post',
      '/admin/tenants',
      () => api('/admin/tenants', json(testEnv().adminToken, JSON.stringify({ id: 'x'.repeat(70_000) }))),
    ],
    [
      'an admin body as text',
      'patch',
      '/admin/tenants/{tenantId}',
      () => api('/admin/tenants/nobody', { ...json(testEnv().adminToken, 'x'), method: 'PATCH', headers: { 'content-type': 'text/html' } }),
    ],
    ['an unknown player asset', 'get', '/assets/{name}', () => api('/assets/nope.js')],
  ];

  it.each(cases)('%s: %s %s answers a declared status', async (_what, method, path, request) => {
    const r = await request();
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

const id = randomUUID();
const value = `oa-${id}`;
const tenant = `oa-${id}`;
const signingSecret = 'openapi-signing-secret-0123456789';
const kept: { handle?: string } = {};
const secret = () => testEnv().secretKey;
const publicKey = () => testEnv().publicKey;
const adminToken = () => testEnv().adminToken;
const events = () => sampleEvents(5, Date.now() - 60_000);
const tokenIngestId = randomUUID();
/** The console session the console's operations use (its cookie and CSRF token). */
const session: { cookie?: string; csrf?: string } = {};
const sessionHeaders = () => ({ cookie: session.cookie ?? '', 'x-tapedeck-csrf': session.csrf ?? '' });

/** Every operation of the document with a request it answers with success, in an order where each finds what it reads. */
const SUCCESS: Call[] = [
  { method: 'post', path: '/recordings/{recordingId}/events', url: `/recordings/${id}/events`, key: publicKey, body: events() },
  { method: 'post', path: '/recordings/{recordingId}/metadata', url: `/recordings/${id}/metadata`, key: publicKey, body: { openapiRun: value, n: 1 } },
  {
    method: 'get',
    path: '/recordings',
    url: `/recordings?metadata[openapiRun]=${value}&includeSignedUrls=true`,
    key: secret,
    until: (r) => r.json().recordings?.length === 1,
  },
  { method: 'get', path: '/recordings/{recordingId}', url: `/recordings/${id}?includeSignedUrls=true`, key: secret },
  { method: 'get', path: '/recordings/{recordingId}/events', url: `/recordings/${id}/events`, key: secret },
  { method: 'get', path: '/recordings/{recordingId}/activity', url: `/recordings/${id}/activity`, key: secret, until: (r) => r.json().projected === true },
  // Rendered in the background after the first request: 404 until then.
  { method: 'get', path: '/recordings/{recordingId}/thumbnail', url: `/recordings/${id}/thumbnail`, key: secret, until: (r) => r.status === 200 },
  { method: 'post', path: '/recordings/{recordingId}/links', url: `/recordings/${id}/links`, key: secret, body: { ttlSeconds: 600, resource: 'player' } },
  {
    method: 'post',
    path: '/console/session',
    url: '/console/session',
    // A getter: the stack's key is known once the tests run.
    body: {
      get key() {
        return secret();
      },
    },
    keep: (r) => {
      session.cookie = /td_session=[^;]+/.exec(r.headers.get('set-cookie') ?? '')?.[0];
      session.csrf = r.json().csrf;
    },
  },
  { method: 'get', path: '/console/session', url: '/console/session', headers: sessionHeaders },
  { method: 'delete', path: '/console/session', url: '/console/session', headers: sessionHeaders },
  { method: 'get', path: '/replays/{groupingProp}', url: '/replays/openapiRun?includeSignedUrls=true&limit=100', key: secret },
  { method: 'get', path: '/replays/{groupingProp}/{replayValue}', url: `/replays/openapiRun/${value}`, key: secret },
  { method: 'get', path: '/replays/{groupingProp}/{replayValue}/events', url: `/replays/openapiRun/${value}/events`, key: secret },
  { method: 'get', path: '/replay', url: `/replay?metadata[openapiRun]=${value}`, key: secret },
  { method: 'get', path: '/statistics', url: `/statistics?metadata[openapiRun]=${value}&groupBy=n`, key: secret },
  { method: 'get', path: '/healthz', url: '/healthz' },
];

/** The operations the cases above leave out: aliases, the other reads, and the deletion last. */
const MORE: Call[] = [
  { method: 'post', path: '/recordings/{recordingId}/ingest', url: `/recordings/${randomUUID()}/ingest`, key: publicKey, body: events() },
  { method: 'post', path: '/', url: `/?recordingId=${randomUUID()}`, key: publicKey, body: events() },
  { method: 'post', path: '/events', url: `/events?recordingId=${randomUUID()}`, key: publicKey, body: { events: events() } },
  { method: 'post', path: '/ingest', url: () => `/ingest?recordingId=${tokenIngestId}&token=${encodeURIComponent(publicKey())}`, body: events() },
  { method: 'post', path: '/recordings/{recordingId}/meta', url: `/recordings/${id}/meta`, key: publicKey, body: { openapiAlias: true } },
  { method: 'get', path: '/replays', url: `/replays?meta[openapiRun]=${value}`, key: secret },
  { method: 'get', path: '/readyz', url: '/readyz' },
  { method: 'get', path: '/metrics', url: '/metrics' },
  { method: 'get', path: '/recordings/{recordingId}/player', url: `/recordings/${id}/player?mode=minimal`, key: secret },
  { method: 'get', path: '/recordings/{recordingId}/player.html', url: `/recordings/${id}/player.html?speed=2`, key: secret },
  { method: 'get', path: '/recordings/{recordingId}/preview', url: `/recordings/${id}/preview`, key: secret },
  ...['screenshot', 'screenshot.png', 'screenshot.jpeg', 'screenshot.jpg', 'screenshot.webp'].map((s): Call => ({
    method: 'get',
    path: `/recordings/{recordingId}/${s}`,
    url: `/recordings/${id}/${s}?width=64&height=48&quality=50`,
    key: secret,
  })),
  { method: 'get', path: '/assets/{name}', url: '/assets/rrweb-player.css' },
  { method: 'get', path: '/sdk/recorder.js', url: '/sdk/recorder.js' },
  { method: 'get', path: '/sdk/recorder.js.map', url: '/sdk/recorder.js.map' },
  { method: 'get', path: '/record.js', url: '/record.js' },
  { method: 'delete', path: '/recordings/{recordingId}', url: `/recordings/${id}`, key: secret },
];

/** In order: each builds on the tenant the first creates; the revocations and the tenant's deletion come last. */
const ADMIN: [number, Call][] = [
  [201, { method: 'post', path: '/admin/tenants', url: '/admin/tenants', body: { id: tenant, name: 'OpenAPI', retentionDays: 30 } }],
  [200, { method: 'post', path: '/admin/tenants', url: '/admin/tenants', body: { id: tenant } }],
  [200, { method: 'patch', path: '/admin/tenants/{tenantId}', url: `/admin/tenants/${tenant}`, body: { retentionDays: 7 } }],
  [200, { method: 'patch', path: '/admin/tenants/{tenantId}', url: `/admin/tenants/${tenant}`, body: { retentionDays: null } }],
  [200, { method: 'get', path: '/admin/tenants', url: '/admin/tenants' }],
  [200, { method: 'get', path: '/admin/tenants/{tenantId}', url: `/admin/tenants/${tenant}` }],
  [200, { method: 'post', path: '/admin/tenants/{tenantId}/suspend', url: `/admin/tenants/${tenant}/suspend` }],
  [200, { method: 'post', path: '/admin/tenants/{tenantId}/resume', url: `/admin/tenants/${tenant}/resume` }],
  [200, { method: 'patch', path: '/admin/tenants/{tenantId}/limits', url: `/admin/tenants/${tenant}/limits`, body: { storedBytes: 0, webSockets: null } }],
  [200, { method: 'get', path: '/admin/tenants/{tenantId}/limits', url: `/admin/tenants/${tenant}/limits` }],
  [
    201,
    {
      method: 'post',
      path: '/admin/tenants/{tenantId}/keys',
      url: `/admin/tenants/${tenant}/keys`,
      body: { kind: 'public', allowedOrigins: ['https://app.example.test'] },
    },
  ],
  [
    201,
    {
      method: 'post',
      path: '/admin/tenants/{tenantId}/keys',
      url: `/admin/tenants/${tenant}/keys`,
      body: { kind: 'secret' },
      keep: (r: Res) => (kept.handle = r.json().handle),
    },
  ],
  [200, { method: 'get', path: '/admin/tenants/{tenantId}/keys', url: `/admin/tenants/${tenant}/keys` }],
  [201, { method: 'post', path: '/admin/tenants/{tenantId}/signing-keys', url: `/admin/tenants/${tenant}/signing-keys`, body: { keyId: 'generated' } }],
  [
    201,
    {
      method: 'post',
      path: '/admin/tenants/{tenantId}/signing-keys',
      url: `/admin/tenants/${tenant}/signing-keys`,
      body: { keyId: 'given.1', secret: signingSecret },
    },
  ],
  [
    200,
    {
      method: 'post',
      path: '/admin/tenants/{tenantId}/signing-keys',
      url: `/admin/tenants/${tenant}/signing-keys`,
      body: { keyId: 'given.1', secret: signingSecret },
    },
  ],
  [200, { method: 'get', path: '/admin/tenants/{tenantId}/signing-keys', url: `/admin/tenants/${tenant}/signing-keys` }],
  [204, { method: 'delete', path: '/admin/tenants/{tenantId}/keys/{handle}', url: () => `/admin/tenants/${tenant}/keys/${kept.handle}` }],
  [204, { method: 'delete', path: '/admin/tenants/{tenantId}/signing-keys/{keyId}', url: `/admin/tenants/${tenant}/signing-keys/generated` }],
  [202, { method: 'delete', path: '/admin/tenants/{tenantId}', url: `/admin/tenants/${tenant}` }],
].map(([status, c]) => [status as number, { ...(c as Call), key: adminToken }]);

/** The answer breaks what its operation declares (status, content type, JSON body), or the request what it documents. */
async function callViolations(c: Call): Promise<{ status: number; violations: string[] }> {
  const url = urlOf(c);
  const r = await send(c, url);
  c.keep?.(r);
  return { status: r.status, violations: [...requestViolations(c, url).map((v) => `request: ${v}`), ...conformance(c.method, c.path, r)] };
}

describe('success bodies', () => {
  // In order: the reads need the recording written and projected.
  it.each(SUCCESS.map((c) => [c.method, c.path, c]))('%s %s answers what it declares', async (_method, _path, c) => {
    const { status, violations: found } = await callViolations(c);
    expect(status).toBeLessThan(300);
    expect(found).toEqual([]);
  });

  it.each(MORE.map((c) => [c.method, c.path, c]))('%s %s answers what it declares (and is sent as documented)', async (_method, _path, c) => {
    const { status, violations: found } = await callViolations(c);
    expect(status).toBeLessThan(300);
    expect(found).toEqual([]);
  });

  describe('admin API', () => {
    // In order: each builds on the tenant the first creates.
    it.each(ADMIN.map(([status, c]) => [status, c.method, c.path, c]))('%s: %s %s answers what it declares', async (status, _method, _path, c) => {
      const { status: answered, violations: found } = await callViolations(c);
      expect(answered).toBe(status);
      expect(found).toEqual([]);
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
    expect(
      resolve(
        (doc.paths['/replays/{groupingProp}/{replayValue}'].get.responses['200'] as { content: Record<string, { schema: Schema }> }).content['application/json']
          .schema,
      ).required,
    ).toEqual(['metadata', 'events']);
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

const CALLS = [...SUCCESS, ...MORE, ...ADMIN.map(([, c]) => c)];

describe('every operation', () => {
  it('is called by a case above, with a request it answers with success', () => {
    const called = new Set(CALLS.map((c) => `${c.method} ${c.path}`));
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
    expect(operations.filter((o) => !called.has(o))).toEqual([]);
    expect([...called].filter((o) => !operations.includes(o))).toEqual([]);
  });
});

describe('documented bounds', () => {
  // One call per operation (its first case), after the cases above made what it reads.
  const firsts = CALLS.filter((c, i) => CALLS.findIndex((x) => x.method === c.method && x.path === c.path) === i);

  /** The refusal of a value past a bound: a declared 4xx; a 400 names what it refuses. */
  const refusal = (c: Call, r: Res, name: string) => {
    const declared = Object.keys(doc.paths[c.path][c.method].responses).includes(String(r.status));
    return declared && (r.status === 404 || (r.status === 400 && r.text.includes(name))) ? 'refused' : `${r.status} ${r.text.slice(0, 200)}`;
  };

  it.each(firsts.map((c) => [c.method, c.path, c]))('%s %s refuses values past the bounds of its parameters and JSON body fields', async (_m, _p, c) => {
    const op = doc.paths[c.path][c.method];
    const answers: Record<string, string> = {};
    for (const p of (op.parameters ?? []).filter((x) => x.schema && (x.in === 'query' || x.in === 'path'))) {
      if (p.style === 'deepObject') {
        const values = resolve(p.schema!.additionalProperties as Schema);
        if (values?.maxLength === undefined) continue;
        const u = new URL(urlOf(c), 'http://x');
        u.searchParams.set(`${p.name}[bound]`, 'x'.repeat(values.maxLength + 1));
        answers[`${p.name}[bound]`] = refusal(c, await send({ ...c, until: undefined }, u.pathname + u.search), p.name);
        continue;
      }
      for (const v of pastBounds(p.schema as Schema)) {
        if (p.in === 'path' && v === '') continue; // an empty segment is another path
        answers[`${p.name}=${JSON.stringify(v).slice(0, 20)}`] = refusal(c, await send({ ...c, until: undefined }, withParam(c, p, v)), p.name);
      }
    }
    const body = (op as unknown as { requestBody?: { content: Record<string, { schema: Schema }> } }).requestBody?.content['application/json']?.schema;
    const fields = body && resolve(body).type === 'object' && c.body && typeof c.body === 'object' ? (resolve(body).properties ?? {}) : {};
    for (const [name, schema] of Object.entries(fields)) {
      for (const v of pastBounds(schema, (c.body as Record<string, unknown>)[name])) {
        answers[`body.${name}=${JSON.stringify(v).slice(0, 20)}`] = refusal(
          c,
          await send({ ...c, until: undefined }, urlOf(c), { ...(c.body as object), [name]: v }),
          name,
        );
      }
    }
    expect(Object.entries(answers).filter(([, a]) => a !== 'refused')).toEqual([]);
  });

  // Rendering a screenshot or player at its largest takes seconds: their bounds are taken as far as refusals.
  it.each(firsts.map((c) => [c.method, c.path, c]))('%s %s takes values at the bounds of its parameters', async (_m, _p, c) => {
    if (c.path.startsWith('/recordings/{recordingId}/') && /screenshot|player|preview/.test(c.path)) return;
    const op = doc.paths[c.path][c.method];
    const refused: string[] = [];
    for (const p of (op.parameters ?? []).filter((x) => x.schema && x.style !== 'deepObject' && (x.in === 'query' || x.in === 'path'))) {
      for (const v of atBounds(p.schema as Schema)) {
        const url = withParam(c, p, v);
        const r = await send({ ...c, until: undefined }, url);
        if (r.status === 400) refused.push(`${p.name}=${String(v).slice(0, 20)}: ${r.text.slice(0, 200)}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
