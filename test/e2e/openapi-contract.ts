// What /openapi.json documents, checked against real requests and answers: a validator for the
// subset of OpenAPI 3.0 schemas the document uses, the requests the contract spec sends (checked
// against the documented parameters and bodies), and values at and past the bounds a schema documents.
import { api, Res } from '../harness/http';
import { pollUntil } from '../harness/poll-until';

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  schema?: Record<string, unknown>;
}
export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, unknown>;
  security?: Record<string, unknown>[];
}
export interface OpenApi {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, unknown>> };
}

let doc: OpenApi;

/** Reads /openapi.json; every check below reads this copy. */
export async function loadDocument(): Promise<OpenApi> {
  doc = (await api('/openapi.json')).json<OpenApi>();
  return doc;
}

export type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  description?: string;
};

export const resolve = (schema: Schema): Schema =>
  schema.$ref ? resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] as Schema) : schema;

/**
 * Where `value` breaks `schema`: the subset of OpenAPI 3.0 schemas the document uses. A schema that only
 * gives an example describes nothing; one with no keyword but a description is any value (unknown).
 */
export function violations(schema: Schema, value: unknown, at = '$'): string[] {
  if (schema.$ref) return violations(resolve(schema), value, at);
  if (schema.oneOf) return schema.oneOf.filter((s) => violations(s, value, at).length === 0).length === 1 ? [] : [`${at}: not exactly one of oneOf`];
  if (schema.anyOf) return schema.anyOf.some((s) => violations(s, value, at).length === 0) ? [] : [`${at}: none of anyOf`];
  if (!schema.type && Object.keys(schema).every((k) => k === 'description')) return [];
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
      if (!Array.isArray(value)) return [`${at}: not an array`];
      return schema.maxItems !== undefined && value.length > schema.maxItems
        ? [`${at}: more than ${schema.maxItems} items`]
        : value.flatMap((x, i) => violations(schema.items!, x, `${at}[${i}]`));
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || (schema.type === 'integer' && !Number.isInteger(value))) return [`${at}: not an ${schema.type}`];
      return (schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum)
        ? [`${at}: ${value} out of range`]
        : [];
    case 'string':
      if (typeof value !== 'string') return [`${at}: not a string`];
      if ((schema.minLength !== undefined && value.length < schema.minLength) || (schema.maxLength !== undefined && value.length > schema.maxLength))
        return [`${at}: length ${value.length} out of range`];
      if (schema.pattern && !new RegExp(schema.pattern).test(value)) return [`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`];
      return schema.format === 'uuid' && !/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(value) ? [`${at}: not a uuid`] : [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${at}: not a boolean`];
    default:
      return [`${at}: unknown type ${schema.type}`];
  }
}

/** How `r` breaks what the operation declares for its status: the status, the content type, the JSON body's schema. */
export function conformance(method: string, path: string, r: Res): string[] {
  const declared = doc.paths[path][method].responses[String(r.status)] as { content?: Record<string, { schema?: Schema }> } | undefined;
  if (!declared) return [`status ${r.status} not declared`];
  const type = (r.headers.get('content-type') ?? '').split(';')[0];
  if ((r.status === 204 || r.status === 304) && r.text === '') return [];
  const content = declared.content?.[type];
  if (!content) return [`${type} not declared for ${r.status}`];
  return type === 'application/json' && content.schema ? violations(content.schema, r.json()) : [];
}

/** A request as the cases below send it; its URL may depend on what an earlier answer named. */
export interface Call {
  method: string;
  /** The document's path template. */
  path: string;
  url: string | (() => string);
  key?: () => string | undefined;
  body?: unknown;
  /** Poll until the answer satisfies this (the projections lag ingestion). */
  until?: (r: Res) => boolean;
  /** Reads the answer for later calls. */
  keep?: (r: Res) => void;
  /** More request headers (a console session's cookie and CSRF token). */
  headers?: () => Record<string, string>;
}

export const urlOf = (c: Call) => (typeof c.url === 'function' ? c.url() : c.url);

export function send(c: Call, url = urlOf(c), body = c.body): Promise<Res> {
  const once = () =>
    api(url, {
      method: c.method.toUpperCase(),
      key: c.key?.(),
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...c.headers?.() },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  return c.until ? pollUntil(once, c.until) : once();
}

export const pathPattern = (path: string) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`);

/** How a request breaks what its operation documents: path and query parameters (every one it sends documented), and a JSON body. */
export function requestViolations(c: Call, url = urlOf(c), body = c.body): string[] {
  const op = doc.paths[c.path][c.method];
  const params = op.parameters ?? [];
  const u = new URL(url, 'http://x');
  const out: string[] = [];
  const pathValues = pathPattern(c.path).exec(u.pathname)?.slice(1) ?? [];
  [...c.path.matchAll(/\{([^}]+)\}/g)].forEach((m, i) => {
    const p = params.find((x) => x.in === 'path' && x.name === m[1]);
    out.push(...(p?.schema ? violations(p.schema as Schema, decodeURIComponent(pathValues[i] ?? ''), `path ${m[1]}`) : [`path ${m[1]}: not documented`]));
  });
  // An API key in the query (security scheme `token`) is a credential the document names as such.
  const credentials = (op.security ?? [])
    .flatMap((r) => Object.keys(r))
    .map((k) => doc.components.securitySchemes[k])
    .filter((k) => k?.in === 'query')
    .map((k) => k.name);
  const filters: Record<string, Record<string, string>> = {};
  for (const [name, value] of u.searchParams) {
    if (credentials.includes(name) && !params.some((x) => x.name === name)) continue;
    const deep = /^([^[]+)\[(.*)\]$/.exec(name);
    const p = params.find((x) => x.in === 'query' && x.name === (deep && params.some((y) => y.name === deep[1] && y.style === 'deepObject') ? deep[1] : name));
    if (!p?.schema) out.push(`query ${name}: not documented`);
    else if (p.style === 'deepObject') (filters[p.name] ??= {})[deep![2]] = value;
    else {
      const type = resolve(p.schema as Schema).type;
      out.push(
        ...violations(p.schema as Schema, (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value, `query ${name}`),
      );
    }
  }
  for (const [name, value] of Object.entries(filters)) out.push(...violations(params.find((p) => p.name === name)!.schema as Schema, value, `query ${name}`));
  for (const p of params.filter((x) => x.required && x.in === 'query')) if (!u.searchParams.has(p.name)) out.push(`query ${p.name}: required, missing`);
  if (body !== undefined) {
    const content = (op as unknown as { requestBody?: { content: Record<string, { schema: Schema }> } }).requestBody?.content['application/json'];
    out.push(...(content ? violations(content.schema, typeof body === 'string' ? JSON.parse(body) : body, 'body') : ['body: not documented']));
  }
  return out;
}

/** Values just past the bounds a schema documents (safe-integer limits aside); `sample` is a valid value, for arrays. */
export function pastBounds(schema: Schema, sample?: unknown): unknown[] {
  const s = resolve(schema);
  const out: unknown[] = [];
  const safe = (n: number | undefined): n is number => n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER;
  if (s.enum) out.push('not-one-of-them');
  if (s.type === 'integer' || s.type === 'number') {
    if (safe(s.minimum)) out.push(s.minimum - 1);
    if (safe(s.maximum)) out.push(s.maximum + 1);
    if (s.type === 'integer') out.push(1.5);
  }
  if (s.type === 'string') {
    if (s.minLength) out.push('x'.repeat(s.minLength - 1));
    if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength + 1));
    const bad = s.pattern ? ['!', ' ', 'x!y'].find((v) => !new RegExp(s.pattern!).test(v)) : undefined;
    if (bad !== undefined) out.push(bad);
  }
  if (s.type === 'array' && s.maxItems !== undefined && Array.isArray(sample) && sample.length > 0) out.push(Array(s.maxItems + 1).fill(sample[0]));
  return out;
}

/** Values exactly at the numeric and length bounds a schema documents. */
export function atBounds(schema: Schema): unknown[] {
  const s = resolve(schema);
  if (s.type === 'integer' || s.type === 'number') return [s.minimum, s.maximum].filter((n) => n !== undefined && Math.abs(n) < Number.MAX_SAFE_INTEGER);
  if (s.type === 'string')
    return [s.minLength ? 'x'.repeat(s.minLength) : undefined, s.maxLength !== undefined ? 'x'.repeat(s.maxLength) : undefined].filter((v) => v !== undefined);
  return [];
}

/** The call with one parameter (path or query) set to `v`. */
export function withParam(c: Call, p: Parameter, v: unknown): string {
  const u = new URL(urlOf(c), 'http://x');
  if (p.in === 'query') u.searchParams.set(p.name, String(v));
  else {
    const index = [...c.path.matchAll(/\{([^}]+)\}/g)].findIndex((m) => m[1] === p.name);
    const values = pathPattern(c.path).exec(u.pathname)!.slice(1);
    values[index] = encodeURIComponent(String(v));
    let i = 0;
    u.pathname = c.path.replace(/\{[^}]+\}/g, () => values[i++]);
  }
  return u.pathname + u.search;
}
