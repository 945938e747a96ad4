// The ClickHouse adapter against the real server: every read asks for the cache of uncompressed
// blocks (docs/operations.md, Sizing), a setting this server accepts, while the server's default
// stays off. system.settings shows the settings of the query that reads it.
import { sql } from '../../src/infrastructure/clickhouse/sql';
import { clickhouse } from './projections-fixtures';

const SETTING = sql`SELECT value FROM system.settings WHERE name = 'use_uncompressed_cache'`;

describe('ClickHouse adapter reads', () => {
  const ch = clickhouse();
  afterAll(() => ch.close());

  it('ask for the uncompressed block cache in every read method', async () => {
    expect(await ch.rows<{ value: string }>(SETTING)).toEqual([{ value: '1' }]);
    expect((await ch.json<{ value: string }>(SETTING)).data).toEqual([{ value: '1' }]);
    expect((await ch.rowsBeforeLimit<{ value: string }>(sql`${SETTING} LIMIT 1`)).rows).toEqual([{ value: '1' }]);
  });

  // ClickHouse 25.8 stopped quoting them by default; the chDB run of this spec (scripts/test.sh) is on 26.7.
  it('read 64-bit integers as strings, their digits kept, whatever the server', async () => {
    const big = sql`SELECT toUInt64(9007199254740993) AS n, toInt64(-5) AS m`;
    expect(await ch.rows(big)).toEqual([{ n: '9007199254740993', m: '-5' }]);
    expect((await ch.json(big)).data).toEqual([{ n: '9007199254740993', m: '-5' }]);
  });

  it('leave the server default alone for queries that do not ask', async () => {
    const rs = await ch.client.query({ query: SETTING.text, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ value: '0' }]);
  });
});
