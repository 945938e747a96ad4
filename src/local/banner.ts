// What `npm start` prints once the service answers, after every start-up line: where everything
// is (the console first and again at the end, where the eye lands), the demo tenant's keys, and the
// first commands to try.
import { withoutCredentials } from '../common/redact';
import type { AppConfig } from '../config/config';

export interface BannerInput {
  cfg: AppConfig;
  /** The service's own URL, e.g. http://127.0.0.1:3000. */
  base: string;
  /** The data directory; the keys file and the local stack file are in it. */
  data: string;
  keysFile: string;
  stackFile: string;
}

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000001';

export function banner({ cfg, base, data, keysFile, stackFile }: BannerInput): string {
  const secret = cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY ?? '<private key>';
  const auth = (key: string) => `-H 'Authorization: Bearer ${key}'`;
  const tenant = cfg.TAPEDECK_BOOTSTRAP_TENANT_ID ?? 'demo';
  return [
    '',
    `Tapedeck is running at ${base}`,
    `  console        ${base}/console/   (sign in with the private key, or the admin token for tenants and keys)`,
    `  API reference  ${base}/openapi.json`,
    `  readiness      ${base}/readyz`,
    `  player         ${base}/recordings/<id>/player.html (open it with a presigned link: see "Watch" below)`,
    `  NATS ${withoutCredentials(cfg.NATS_URL)}   ClickHouse ${withoutCredentials(cfg.CLICKHOUSE_URL)}   data ${data}`,
    '',
    `  tenant:       ${tenant}`,
    `  public key:   ${cfg.TAPEDECK_BOOTSTRAP_PUBLIC_KEY ?? ''}   (browsers: ingest only)`,
    `  private key:  ${secret}   (servers: read, list, delete, sign links)`,
    `  signing key:  ${cfg.TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID ?? ''}`,
    `  admin token:  ${cfg.TAPEDECK_ADMIN_TOKEN ?? ''}   (keys are kept in ${keysFile})`,
    '',
    'Try it:',
    `  curl -s -X POST ${base}/recordings/${EXAMPLE_ID}/events ${auth(cfg.TAPEDECK_BOOTSTRAP_PUBLIC_KEY ?? '<public key>')} -H 'Content-Type: application/json' \\`,
    `    -d '[{"type":4,"timestamp":1700000000000,"data":{"href":"https://example.com","width":1280,"height":720}}]'`,
    `  curl -s ${base}/recordings/${EXAMPLE_ID}/events ${auth(secret)}`,
    `  curl -s '${base}/recordings?limit=10' ${auth(secret)}`,
    'Watch a recording (a link that opens the player in a browser, valid an hour):',
    `  npm run cli -- sign --tenant ${tenant} --recording <id> --resource player --ttl 3600`,
    'Create a key, a tenant:',
    `  npm run cli -- keys create --tenant ${tenant} --kind secret        (or --kind public --allowed-origin https://your.site)`,
    `  npm run cli -- tenants create acme`,
    `  (the CLI finds this stack through ${stackFile}; the same over HTTP: POST ${base}/admin/tenants/${tenant}/keys with the admin token)`,
    '',
    `Open the console: ${base}/console/`,
    'Ctrl-C (or SIGTERM) stops the service, then NATS and ClickHouse.',
    '',
  ].join('\n');
}
