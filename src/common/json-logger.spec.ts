import { redactUrl } from './json-logger';

describe('redactUrl', () => {
  it('removes token and signature values, keeping the other parameters', () => {
    expect(redactUrl('/r/1/events?tenantId=t&expires=9&keyId=k&signature=abc123')).toBe('/r/1/events?tenantId=t&expires=9&keyId=k&signature=[redacted]');
    expect(redactUrl('/r/1/events?TOKEN=public_key_svc_x&a=1')).toBe('/r/1/events?TOKEN=[redacted]&a=1');
  });

  it('removes API keys wherever they appear in the URL', () => {
    expect(redactUrl('/admin/tenants/t/keys/secret_key_svc_AbC-_d%20e?x=1')).toBe('/admin/tenants/t/keys/secret_key_svc_[redacted]?x=1');
    expect(redactUrl('/x?k=public_key_svc_zzz&y=2')).toBe('/x?k=public_key_svc_[redacted]&y=2');
  });
});
