// The swap of a rebuild against a clickhouse-server of its own (a swap that deadlocks wedges its
// tables until the server restarts). ClickHouse 18.16 takes the locks of a statement's tables one
// after the other and waits without a timeout; one RENAME of several tables holds the first ones
// while it waits for the next, so a listing that holds one table and reads another could deadlock
// with it for good (seen on a stack under reads: every listing and the projector hung).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { ident, sql } from '../../src/infrastructure/clickhouse/sql';
import type { ManagedProcess } from '../../src/local/processes';
import { swapIn } from '../../src/projections/rebuild/projection-rebuild';
import { createLike, freshName } from '../../src/projections/rebuild/rebuild-sql';
import { startTestClickHouse } from '../harness/clickhouse';

jest.setTimeout(60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

let dir: string;
let server: ManagedProcess & { httpPort: number };
let ch: ClickHouse;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-swap-'));
  server = await startTestClickHouse({ dir });
  ch = new ClickHouse({
    CLICKHOUSE_URL: `http://127.0.0.1:${server.httpPort}`,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
    CLICKHOUSE_DATABASE: 'swap_test',
  });
  await ch.ensureDatabase();
});

afterAll(async () => {
  await ch?.close();
  await server?.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('rebuild swap', () => {
  it('does not deadlock with reads that hold one live table and wait for another', async () => {
    const tables = ['swap_a', 'swap_b', 'swap_c'];
    const suffix = '1';
    for (const t of tables) {
      await ch.command(sql`CREATE TABLE ${ident(t)} (x UInt64) ENGINE = MergeTree ORDER BY x`);
      await ch.insert(t, [{ x: 1 }]);
      await ch.command(createLike(freshName(t, suffix), t));
    }
    // A slow read holds swap_b; the swap starts; then a read takes swap_c and asks for swap_a.
    const slow = ch.rows(sql`SELECT count() AS n FROM swap_b WHERE sleep(1) = 0`);
    await sleep(300);
    const swap = swapIn(ch, tables, suffix);
    await sleep(300);
    const crossing = ch.rows<{ n: string }>(sql`SELECT count() AS n FROM swap_c WHERE x IN (SELECT x FROM swap_a)`);
    await within(20_000, 'the swap and the reads', Promise.all([slow, swap, crossing]));
    const names = await ch.rows<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name`);
    expect(names.map((r) => r.name)).toEqual(['swap_a', 'swap_a_old_1', 'swap_b', 'swap_b_old_1', 'swap_c', 'swap_c_old_1']);
    expect(await ch.rows(sql`SELECT count() AS n FROM swap_a`)).toEqual([{ n: '0' }]);
  });
});
