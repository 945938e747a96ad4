import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_STACK_FILE, localDataDir, readLocalStack, withLocalStack, writeLocalStack } from './local-stack-file';

describe('the local stack file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-local-'));
  const stack = { NATS_URL: 'nats://127.0.0.1:14222', CLICKHOUSE_URL: 'http://127.0.0.1:14123', PUBLIC_BASE_URL: 'http://127.0.0.1:3000' };

  beforeAll(() => writeLocalStack(dir, stack));

  it('is written for its owner only and read back', () => {
    expect(statSync(join(dir, LOCAL_STACK_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, LOCAL_STACK_FILE), 'utf8')).toMatch(
      /^# .*\nNATS_URL=nats:\/\/127\.0\.0\.1:14222\nCLICKHOUSE_URL=http:\/\/127\.0\.0\.1:14123\nPUBLIC_BASE_URL=http:\/\/127\.0\.0\.1:3000\n$/,
    );
    expect(readLocalStack(dir)).toEqual(stack);
  });

  it('lives in TAPEDECK_DATA_DIR, relative to the checkout, else .data', () => {
    expect(localDataDir({ TAPEDECK_DATA_DIR: dir })).toBe(dir);
    expect(localDataDir({})).toBe(join(__dirname, '..', '..', '.data'));
    expect(localDataDir({ TAPEDECK_DATA_DIR: ' ' })).toBe(join(__dirname, '..', '..', '.data'));
  });

  it('fills in the addresses when NATS_URL is not set, and names itself', () => {
    expect(withLocalStack({ TAPEDECK_DATA_DIR: dir, LOG_LEVEL: 'warn' })).toEqual({
      env: { TAPEDECK_DATA_DIR: dir, LOG_LEVEL: 'warn', ...stack },
      from: join(dir, LOCAL_STACK_FILE),
    });
    expect(withLocalStack({ TAPEDECK_DATA_DIR: dir, NATS_URL: '' }).env.NATS_URL).toBe(stack.NATS_URL);
  });

  it('gives way to explicit variables: NATS_URL set, the file is not read; another set, it is kept', () => {
    const explicit = { TAPEDECK_DATA_DIR: dir, NATS_URL: 'nats://elsewhere:4222' };
    expect(withLocalStack(explicit)).toEqual({ env: explicit });
    expect(withLocalStack({ TAPEDECK_DATA_DIR: dir, CLICKHOUSE_URL: 'http://ch:8123', PUBLIC_BASE_URL: '' }).env).toEqual({
      TAPEDECK_DATA_DIR: dir,
      NATS_URL: stack.NATS_URL,
      CLICKHOUSE_URL: 'http://ch:8123',
      PUBLIC_BASE_URL: stack.PUBLIC_BASE_URL,
    });
  });

  it('changes nothing without a file, or with one that names no NATS_URL', () => {
    const none = mkdtempSync(join(tmpdir(), 'tapedeck-local-'));
    expect(withLocalStack({ TAPEDECK_DATA_DIR: none })).toEqual({ env: { TAPEDECK_DATA_DIR: none } });
    writeFileSync(join(none, LOCAL_STACK_FILE), '# nothing\nOTHER=x\n');
    expect(withLocalStack({ TAPEDECK_DATA_DIR: none })).toEqual({ env: { TAPEDECK_DATA_DIR: none } });
  });
});
