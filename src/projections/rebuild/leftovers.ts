// Tables a rebuild leaves behind when it stops without finishing (killed, Ctrl-C, a failed swap):
// fresh `<table>_rebuild_<ts>` tables (stopped before its swap) and retired `<table>_old_<ts>` ones
// (stopped after it: the live tables may lack rows projected while it ran, until a rebuild runs
// again). A rebuild running now has the same tables, so they are reported, never dropped.
import type { ClickHouse } from '../../infrastructure/clickhouse/clickhouse-client';
import { sql } from '../../infrastructure/clickhouse/sql';
import type { Projection } from '../projection';

export interface RebuildLeftover {
  kind: 'fresh' | 'retired';
  /** The rebuild's suffix: its start, epoch ms. */
  suffix: string;
  startedAt: string;
  tables: string[];
}

const NAME = /^(.+)_(rebuild|old)_(\d{1,15})$/;

/** The leftovers among `names` of a projection's tables, oldest rebuild first. */
export function groupLeftovers(names: readonly string[], tables: readonly string[]): RebuildLeftover[] {
  const groups = new Map<string, RebuildLeftover>();
  for (const name of [...names].sort()) {
    const m = NAME.exec(name);
    if (!m || !tables.includes(m[1])) continue;
    const kind = m[2] === 'rebuild' ? 'fresh' : 'retired';
    const key = `${m[3]} ${kind}`;
    const g = groups.get(key) ?? { kind, suffix: m[3], startedAt: new Date(Number(m[3])).toISOString(), tables: [] };
    g.tables.push(name);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => Number(a.suffix) - Number(b.suffix) || a.kind.localeCompare(b.kind));
}

export async function findLeftovers(ch: ClickHouse, p: Projection): Promise<RebuildLeftover[]> {
  const rows = await ch.rows<{ name: string }>(sql`SELECT name FROM system.tables WHERE database = currentDatabase()`);
  return groupLeftovers(
    rows.map((r) => r.name),
    p.tables,
  );
}

/** One line for an operator. */
export function describeLeftover(l: RebuildLeftover): string {
  const what = `${l.tables.length} ${l.kind} tables *_${l.kind === 'fresh' ? 'rebuild' : 'old'}_${l.suffix} of a rebuild started ${l.startedAt}`;
  return l.kind === 'fresh'
    ? `${what}: it stopped before its swap, or is still running; once it is not, DROP them`
    : `${what}: it stopped after its swap, or is still running; if stopped, rows projected while it ran may be missing: run projections rebuild again, then DROP them`;
}
