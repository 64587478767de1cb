// Where a planted secret could end up, read back as text: every row of every table of the
// app's database (Buffers as their text and base64, so sealed blobs are searched too).
import type { TestApp } from '../../_helpers/harness/test-app.ts';

export async function tableNames(app: TestApp): Promise<string[]> {
  if (app.database.engine === 'sqlite') {
    const rows = (await app.ctx.db.raw("select name from sqlite_master where type = 'table'")) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }
  const result = (await app.ctx.db.raw('show tables')) as unknown as unknown[][];
  return (result[0] as Array<Record<string, string>>).map((r) => Object.values(r)[0]!);
}

function cellText(value: unknown): string {
  if (Buffer.isBuffer(value)) return `${value.toString('utf8')} ${value.toString('base64')}`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `db:<table>` → every row of it as text, plus the number of rows seen. */
export async function databaseSurfaces(app: TestApp): Promise<{ surfaces: Record<string, string>; rows: number }> {
  const surfaces: Record<string, string> = {};
  let rows = 0;
  for (const table of await tableNames(app)) {
    const all = (await app.ctx.db(table).select()) as Array<Record<string, unknown>>;
    rows += all.length;
    surfaces[`db:${table}`] = all.map((row) => Object.entries(row).map(([k, v]) => `${k}=${cellText(v)}`).join('\t')).join('\n');
  }
  return { surfaces, rows };
}
