// The ClickHouse the harness starts: Debian's clickhouse-server (18.16 here), or, with
// TAPEDECK_TEST_CLICKHOUSE=chdb, the current ClickHouse engine that deploy/ targets (chDB behind
// scripts/chdb-http-server.mjs). Every spec starts its ClickHouse through here.
import { ClickHouseOptions, startClickHouse } from '../../src/local/processes';

export type TestClickHouseEngine = NonNullable<ClickHouseOptions['engine']>;

export function testClickHouseEngine(): TestClickHouseEngine {
  return process.env.TAPEDECK_TEST_CLICKHOUSE === 'chdb' ? 'chdb' : 'server';
}

export function startTestClickHouse(o: ClickHouseOptions) {
  return startClickHouse({ engine: testClickHouseEngine(), ...o });
}
