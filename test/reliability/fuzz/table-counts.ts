import type { Knex } from 'knex';

export type TableCounts = Map<string, number>;

/** Every table of the database, read from the database itself (so a new table is counted too). */
export async function listTables(db: Knex, engine: 'sqlite' | 'mysql'): Promise<string[]> {
  if (engine === 'sqlite') {
    const rows = (await db.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }
  const [rows] = (await db.raw('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY table_name')) as [Array<{ name: string }>];
  return rows.map((r) => r.name);
}

/** A counter of every table's rows in one statement (one round trip per snapshot). */
export function tableCounter(db: Knex, engine: 'sqlite' | 'mysql', tables: readonly string[]): () => Promise<TableCounts> {
  const quote = (name: string) => (engine === 'sqlite' ? `"${name}"` : `\`${name}\``);
  const sql = tables.map((t) => `SELECT '${t}' AS t, COUNT(*) AS n FROM ${quote(t)}`).join(' UNION ALL ');
  return async () => {
    const result = await db.raw(sql);
    const rows = (engine === 'sqlite' ? result : result[0]) as Array<{ t: string; n: number | string }>;
    return new Map(rows.map((r) => [r.t, Number(r.n)]));
  };
}

/** Tables whose count differs, as `table: before → after`. */
export function countDifferences(before: TableCounts, after: TableCounts): string[] {
  const out: string[] = [];
  for (const [table, n] of after) if (before.get(table) !== n) out.push(`${table}: ${before.get(table)} → ${n}`);
  return out;
}
