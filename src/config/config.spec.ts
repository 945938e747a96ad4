import { ConfigError, loadConfig } from './config';

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return 'accepted';
  } catch (e) {
    return e instanceof ConfigError ? e.message : `crash: ${String(e)}`;
  }
};

describe('loadConfig', () => {
  it('takes an empty variable as unset: the default applies, for numbers and strings alike', () => {
    const cfg = loadConfig({ PORT: '', RETENTION_SWEEP_SECONDS: ' ', RENDER_QUEUE: '', CLICKHOUSE_USER: '', PROJECTOR_LINGER_MS: '' });
    const defaults = loadConfig({});
    expect(cfg.PORT).toBe(3000);
    expect(cfg.RETENTION_SWEEP_SECONDS).toBe(defaults.RETENTION_SWEEP_SECONDS);
    expect(cfg.RENDER_QUEUE).toBe(defaults.RENDER_QUEUE);
    expect(cfg.PROJECTOR_LINGER_MS).toBe(defaults.PROJECTOR_LINGER_MS);
    expect(cfg.CLICKHOUSE_USER).toBe('default');
  });

  it('reads numbers in decimal only, and refuses others naming the variable', () => {
    expect(loadConfig({ PORT: '8080', RATE_LIMIT_PER_SECOND: '2.5', STREAM_MAX_BYTES: '-1' })).toMatchObject({
      PORT: 8080,
      RATE_LIMIT_PER_SECOND: 2.5,
      STREAM_MAX_BYTES: -1,
    });
    for (const [name, value] of [
      ['PORT', '0x50'],
      ['PORT', '1e3'],
      ['PORT', '80abc'],
      ['STREAM_MAX_BYTES', '0x10'],
      ['RATE_LIMIT_PER_SECOND', 'fast'],
      ['WS_HEARTBEAT_MS', '1.5'],
    ]) {
      expect(refusal({ [name]: value })).toMatch(new RegExp(`^Invalid configuration:\\n  ${name}: `));
    }
  });

  it('prepares batches of 64 KiB and more in one thread by default; none, or a count up to 16', () => {
    expect(loadConfig({})).toMatchObject({ INGEST_THREADS: 1, INGEST_THREAD_MIN_BYTES: 65536 });
    expect(loadConfig({ INGEST_THREADS: '0', INGEST_THREAD_MIN_BYTES: '0' })).toMatchObject({ INGEST_THREADS: 0, INGEST_THREAD_MIN_BYTES: 0 });
    expect(refusal({ INGEST_THREADS: '17' })).toMatch(/^Invalid configuration:\n {2}INGEST_THREADS: /);
    expect(refusal({ INGEST_THREADS: '-1' })).toMatch(/^Invalid configuration:\n {2}INGEST_THREADS: /);
  });

  it('assembles event reads in a thread of their own at a lower priority unless told not to', () => {
    expect(loadConfig({})).toMatchObject({ READ_THREADS: 1, READ_THREAD_NICE: 5 });
    expect(loadConfig({ READ_THREADS: '0', READ_THREAD_NICE: '0' })).toMatchObject({ READ_THREADS: 0, READ_THREAD_NICE: 0 });
    expect(refusal({ READ_THREADS: '2' })).toMatch(/^Invalid configuration:\n {2}READ_THREADS: /);
    expect(refusal({ READ_THREAD_NICE: '20' })).toMatch(/^Invalid configuration:\n {2}READ_THREAD_NICE: /);
  });

  it('drives Chromium from a thread of its own unless told the service thread, and refuses other places', () => {
    expect(loadConfig({}).RENDER_THREAD).toBe('worker');
    expect(loadConfig({ RENDER_THREAD: 'service' }).RENDER_THREAD).toBe('service');
    expect(refusal({ RENDER_THREAD: 'main' })).toMatch(/^Invalid configuration:\n {2}RENDER_THREAD: /);
  });

  it('needs http(s) URLs for ClickHouse and the public base URL', () => {
    expect(refusal({ CLICKHOUSE_URL: 'localhost:8123' })).toMatch(/CLICKHOUSE_URL: must be an http:\/\/ or https:\/\/ URL/);
    expect(refusal({ PUBLIC_BASE_URL: 'rec.example.com' })).toMatch(/PUBLIC_BASE_URL: /);
    expect(loadConfig({ CLICKHOUSE_URL: 'https://ch.internal:8443', PUBLIC_BASE_URL: 'https://rec.example.com/tapedeck' })).toMatchObject({
      CLICKHOUSE_URL: 'https://ch.internal:8443',
      PUBLIC_BASE_URL: 'https://rec.example.com/tapedeck',
    });
  });
});
