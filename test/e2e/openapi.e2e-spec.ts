// /openapi.json as a client generator or a traffic validator reads it: the parameters carry their
// documented bounds in their schemas, not only in prose, and every status a route answers is declared.
import { randomUUID } from 'node:crypto';
import { testEnv } from '../harness/env';
import { api, Res } from '../harness/http';

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

beforeAll(async () => {
  doc = (await api('/openapi.json')).json<OpenApi>();
});

const param = (method: string, path: string, name: string) => doc.paths[path]?.[method]?.parameters?.find((p) => p.name === name);

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
});
