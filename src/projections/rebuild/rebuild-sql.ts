// Statements of a rebuild. Fresh tables copy the live table's structure and engine
// (`CREATE TABLE new AS old`), so their DDL is the migrations' DDL by construction. The swap is one
// RENAME statement (18.16 has no EXCHANGE TABLES; all renames of a statement run under one lock).
import { ident, join, Sql, sql } from '../../infrastructure/clickhouse/sql';

export const freshName = (table: string, suffix: string) => `${table}_rebuild_${suffix}`;
export const retiredName = (table: string, suffix: string) => `${table}_old_${suffix}`;

export const createLike = (table: string, like: string): Sql => sql`CREATE TABLE ${ident(table)} AS ${ident(like)}`;

export const dropTable = (table: string): Sql => sql`DROP TABLE IF EXISTS ${ident(table)}`;

/** live → retired and fresh → live for every table, in one statement. */
export function swapTables(tables: readonly string[], suffix: string): Sql {
  const pairs = tables.flatMap((t) => [
    sql`${ident(t)} TO ${ident(retiredName(t, suffix))}`,
    sql`${ident(freshName(t, suffix))} TO ${ident(t)}`,
  ]);
  return sql`RENAME TABLE ${join(pairs, ', ')}`;
}
