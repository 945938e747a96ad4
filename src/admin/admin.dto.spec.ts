import { openApiSchema } from '../common/openapi/openapi-schema';
import { createKeySchema, createSigningKeySchema, createTenantSchema, keyHandleSchema, updateTenantSchema } from './admin.dto';

/** The request body's schema as the document shows it. */
const openApiBody = (schema: Parameters<typeof openApiSchema>[0]) => openApiSchema(schema, 'input');

describe('admin input schemas', () => {
  it.each(['https://app.example.com', 'http://localhost:3000', 'https://xn--bcher-kva.de'])('accepts the origin %s', (o) => {
    expect(createKeySchema.safeParse({ kind: 'public', allowedOrigins: [o] }).success).toBe(true);
  });

  it.each([
    'https://app.example.com/',
    'https://app.example.com/path',
    'app.example.com',
    'null',
    '*',
    'ftp://x.test',
    'https://bücher.de',
    'https://a.test:443',
  ])('refuses the origin %p', (o) => expect(createKeySchema.safeParse({ kind: 'public', allowedOrigins: [o] }).success).toBe(false));

  it('takes handles, never keys, for revocation over HTTP', () => {
    expect(keyHandleSchema.safeParse('0123456789abcdef').success).toBe(true);
    expect(keyHandleSchema.safeParse('secret_key_svc_0123456789abcdef').success).toBe(false);
  });

  it('refuses unknown fields and out-of-range values', () => {
    expect(createTenantSchema.safeParse({ id: 'acme', extra: 1 }).success).toBe(false);
    expect(createTenantSchema.safeParse({ id: 'acme', retentionDays: 0 }).success).toBe(false);
    expect(createTenantSchema.safeParse({ id: 'a.b' }).success).toBe(false);
    expect(createSigningKeySchema.safeParse({ keyId: 'k', secret: 'short' }).success).toBe(false);
    expect(createSigningKeySchema.safeParse({ keyId: 'k.' }).success).toBe(false);
  });

  it('takes a retention update of 0-36500 days or null, and nothing else', () => {
    for (const retentionDays of [0, 1, 36500, null]) expect(updateTenantSchema.safeParse({ retentionDays }).success).toBe(true);
    for (const body of [
      {},
      { retentionDays: -1 },
      { retentionDays: 36501 },
      { retentionDays: 1.5 },
      { retentionDays: '30' },
      { retentionDays: 30, name: 'x' },
    ]) {
      expect(updateTenantSchema.safeParse(body).success).toBe(false);
    }
    expect(openApiBody(updateTenantSchema)).toMatchObject({
      type: 'object',
      required: ['retentionDays'],
      properties: { retentionDays: { type: 'integer', minimum: 0, maximum: 36500, nullable: true } },
    });
  });

  it('renders as OpenAPI body schemas', () => {
    expect(openApiBody(createKeySchema)).toMatchObject({ type: 'object', required: ['kind'], properties: { kind: { enum: ['public', 'secret'] } } });
  });
});
