// GET /openapi.json: routes, parameters and security come from the controllers' decorators, every
// schema from a zod schema (the DTOs of each feature's *.dto.ts, rendered by nestjs-zod).
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { cleanupOpenApiDoc } from 'nestjs-zod';
import { API_VERSION } from '../../version';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Tapedeck')
      .setDescription(
        'Self-hosted session-recording service for rrweb: ingestion, listing, replays, player, screenshots, statistics. Errors: application and authentication failures are text/plain; request-schema validation failures are JSON {error, message, issues}. ' +
          'Every response carries X-Tapedeck-Api-Version, the API version of this document (info.version). ' +
          'WebSocket ingestion (/recordings/{recordingId}/events/ws and its aliases), which OpenAPI cannot describe, is in docs/websocket.md.',
      )
      .setVersion(API_VERSION)
      .addBearerAuth({
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key',
        description: 'public_key_svc_* (write) or secret_key_svc_* (full access); the admin API takes TAPEDECK_ADMIN_TOKEN',
      })
      .addSecurity('token', {
        type: 'apiKey',
        in: 'query',
        name: 'token',
        description:
          'The same public or secret key in ?token=, for clients that cannot set headers (sendBeacon); ingestion and metadata only; once (given twice: 400)',
      })
      .addSecurity('presigned', { type: 'apiKey', in: 'query', name: 'signature', description: 'With tenantId, expires, keyId: see docs/presigned-links.md' })
      .addSecurity('metricsToken', {
        type: 'http',
        scheme: 'bearer',
        description: 'METRICS_TOKEN, when the operator sets it: required by /metrics, and for the details of /readyz (docs/operations.md)',
      })
      .build(),
    { operationIdFactory },
  );
  return withoutOutputSuffix(cleanupOpenApiDoc(doc, { version: '3.0' }));
}

/**
 * `Controller_method`, as Nest names operations, except for a handler on several paths (the older
 * aliases such as /ingest): Nest names those `method[0]`, `method[1]`, which client generators reject
 * as identifiers. The first path keeps the plain name, the others get `_alias<n>`.
 */
export function operationIdFactory(controllerKey: string, methodKey: string): string {
  const alias = /^(.+)\[(\d+)\]$/.exec(methodKey);
  const name = `${controllerKey}_${alias ? alias[1] : methodKey}`;
  return alias && alias[2] !== '0' ? `${name}_alias${alias[2]}` : name;
}

/**
 * nestjs-zod names the response side of a schema `<id>_Output`, to tell it from a request side of the
 * same id. Where the request side does not exist or reads the same (an rrweb event), the schema keeps
 * its plain name: `Tenant`, not `Tenant_Output`, for the types client generators name after it.
 */
function withoutOutputSuffix(doc: OpenAPIObject): OpenAPIObject {
  const schemas = { ...doc.components?.schemas };
  const renamed = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemas)) {
    const plain = name.replace(/_Output$/, '');
    if (plain === name || (plain in schemas && JSON.stringify(schemas[plain]) !== JSON.stringify(schema))) continue;
    delete schemas[name];
    schemas[plain] = schema;
    renamed.set(`#/components/schemas/${name}`, `#/components/schemas/${plain}`);
  }
  const rename = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rename);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === '$ref' && typeof x === 'string' ? (renamed.get(x) ?? x) : rename(x)]));
  };
  return rename({ ...doc, components: { ...doc.components, schemas } }) as OpenAPIObject;
}
