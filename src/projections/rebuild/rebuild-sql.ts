// Statements of a rebuild. Fresh tables copy the live table's structure and engine
// (`CREATE TABLE new AS old`), so their DDL is the migrations' DDL by construction. The swap is one
// RENAME statement per table (18.16 has no EXCHANGE TABLES): a RENAME of several tables locks them
// one after the other, holding each while it waits for the next, and deadlocks for good with a read
// that holds one of them and waits for another (18.16 lock waits have no timeout).
import { ident, Sql, sql } from '../../infrastructure/clickhouse/sql';

export const freshName = (table: string, suffix: string) => `${table}_rebuild_${suffix}`;
export const retiredName = (table: string, suffix: string) => `${table}_old_${suffix}`;

export const createLike = (table: string, like: string): Sql => sql`CREATE TABLE ${ident(table)} AS ${ident(like)}`;

export const dropTable = (table: string): Sql => sql`DROP TABLE IF EXISTS ${ident(table)}`;

/** live → retired and fresh → live for one table, in one statement. */
export const swapTable = (table: string, suffix: string): Sql =>
  sql`RENAME TABLE ${ident(table)} TO ${ident(retiredName(table, suffix))}, ${ident(freshName(table, suffix))} TO ${ident(table)}`;
