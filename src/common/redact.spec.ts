import { redactUrl, withoutCredentials } from './redact';

describe('redactUrl', () => {
  it('removes token and signature values, keeping the other parameters', () => {
    expect(redactUrl('/r/1/events?tenantId=t&expires=9&keyId=k&signature=abc123')).toBe('/r/1/events?tenantId=t&expires=9&keyId=k&signature=[redacted]');
    expect(redactUrl('/r/1/events?TOKEN=public_key_svc_x&a=1')).toBe('/r/1/events?TOKEN=[redacted]&a=1');
  });

  it('removes API keys wherever they appear in the URL', () => {
    expect(redactUrl('/admin/tenants/t/keys/secret_key_svc_AbC-_d%20e?x=1')).toBe('/admin/tenants/t/keys/secret_key_svc_[redacted]?x=1');
    expect(redactUrl('/x?k=public_key_svc_zzz&y=2')).toBe('/x?k=public_key_svc_[redacted]&y=2');
  });

  it("removes a value that is itself a URL carrying credentials (the player's eventsUrl)", () => {
    const eventsUrl = encodeURIComponent('/recordings/1/events?tenantId=t&expires=9&keyId=k&signature=abc123');
    expect(redactUrl(`/recordings/1/player?mode=minimal&eventsUrl=${eventsUrl}`)).toBe('/recordings/1/player?mode=minimal&eventsUrl=[redacted]');
    expect(redactUrl(`/x?u=${encodeURIComponent('events?token=abc')}`)).toBe('/x?u=[redacted]');
    expect(redactUrl(`/x?u=${encodeURIComponent('/events?tenantId=t')}`)).toBe(`/x?u=${encodeURIComponent('/events?tenantId=t')}`);
  });

  it('removes them when percent-encoding hides their names or shapes (the service decodes both)', () => {
    expect(redactUrl('/r/1/events?tenantId=t&%73ignature=abc123&%54oken=x')).toBe('/r/1/events?tenantId=t&%73ignature=[redacted]&%54oken=[redacted]');
    expect(redactUrl('/r/1/events?sig%6Eature=abc123')).toBe('/r/1/events?sig%6Eature=[redacted]');
    expect(redactUrl('/r/1/events?k=public%5Fkey%5Fsvc%5Fzzz&y=2')).toBe('/r/1/events?k=[redacted]&y=2');
    expect(redactUrl('/t/secret%5fkey_svc_AbC/x?y=%zz&public%5Fkey_svc_q')).toBe('/t/[redacted]/x?y=%zz&[redacted]');
  });
});

describe('withoutCredentials', () => {
  it('drops user:password from every server of a list and leaves other URLs alone', () => {
    expect(withoutCredentials('nats://app:s3cr%40t@n1:4222, nats://app:s3cret@n2:4222')).toBe('nats://[redacted]@n1:4222, nats://[redacted]@n2:4222');
    expect(withoutCredentials('http://default:pw@127.0.0.1:8123/?database=x')).toBe('http://[redacted]@127.0.0.1:8123/?database=x');
    expect(withoutCredentials('nats://token@host:4222')).toBe('nats://[redacted]@host:4222');
    expect(withoutCredentials('nats://127.0.0.1:4222,nats://127.0.0.1:4223')).toBe('nats://127.0.0.1:4222,nats://127.0.0.1:4223');
    expect(withoutCredentials('http://h:8123/path@not-userinfo')).toBe('http://h:8123/path@not-userinfo');
  });
});
