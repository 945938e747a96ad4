// Forward-only migrations: numbered SQL files (NNN_name.sql, statements separated by lines holding
// only `;`... or ending in `;`) applied in order, each recorded in schema_migrations.
import { Logger } from '@nestjs/common';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouse } from './clickhouse-client';
import { Sql, sql } from './sql';

export const MIGRATIONS_DIR = join(__dirname, 'migrations');

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f.replace(/\.sql$/, ''),
      statements: splitStatements(readFileSync(join(dir, f), 'utf8')),
    }));
}

/** Splits on semicolons at line ends; migration files hold no string literals with `;\n`. */
export function splitStatements(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join('\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export async function appliedVersions(ch: ClickHouse): Promise<Set<number>> {
  const rows = await ch.rows<{ version: number }>(sql`SELECT version FROM schema_migrations`);
  return new Set(rows.map((r) => Number(r.version)));
}

export async function migrate(ch: ClickHouse, migrations = loadMigrations()): Promise<number[]> {
  const logger = new Logger('migrations');
  await ch.ensureDatabase();
  await ch.command(sql`CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32, name String, applied_at UInt32) ENGINE = MergeTree ORDER BY version`);
  const done = await appliedVersions(ch);
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    for (const stmt of m.statements) await ch.command(new Sql(stmt));
    await ch.insert('schema_migrations', [{ version: m.version, name: m.name, applied_at: Math.floor(Date.now() / 1000) }]);
    logger.log({ msg: 'applied migration', version: m.version, name: m.name });
    applied.push(m.version);
  }
  return applied;
}

/** True when every migration of this build is applied. */
export async function isMigrated(ch: ClickHouse, migrations = loadMigrations()): Promise<boolean> {
  const done = await appliedVersions(ch);
  return migrations.every((m) => done.has(m.version));
}
