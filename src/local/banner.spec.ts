import { loadConfig } from '../config/config';
import { banner } from './banner';

describe('the npm start banner', () => {
  const cfg = loadConfig({
    NATS_URL: 'nats://user:pass@127.0.0.1:14222',
    CLICKHOUSE_URL: 'http://127.0.0.1:14123',
    TAPEDECK_BOOTSTRAP_TENANT_ID: 'demo',
    TAPEDECK_BOOTSTRAP_PUBLIC_KEY: 'public_key_svc_pppppppppppppppp',
    TAPEDECK_BOOTSTRAP_SECRET_KEY: 'secret_key_svc_ssssssssssssssss',
    TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID: 'demo-signing-1',
    TAPEDECK_BOOTSTRAP_SIGNING_SECRET: 'x'.repeat(32),
    TAPEDECK_ADMIN_TOKEN: 'a'.repeat(32),
  });
  const text = banner({ cfg, base: 'http://127.0.0.1:3000', data: '/d', keysFile: '/d/bootstrap.json', stackFile: '/d/local-stack.env' });
  const lines = text.trimEnd().split('\n');

  it('names the console first and again in its last lines, where the eye lands', () => {
    expect(lines[1]).toBe('Tapedeck is running at http://127.0.0.1:3000');
    expect(lines[2]).toMatch(/^ {2}console {8}http:\/\/127\.0\.0\.1:3000\/console\/ /);
    expect(lines.slice(-2)).toEqual(['Open the console: http://127.0.0.1:3000/console/', 'Ctrl-C (or SIGTERM) stops the service, then NATS and ClickHouse.']);
  });

  it('gives the keys and the CLI’s way to the stack, never the NATS password', () => {
    expect(text).toContain('private key:  secret_key_svc_ssssssssssssssss');
    expect(text).toContain('/d/local-stack.env');
    expect(text).not.toContain('pass@');
  });
});
