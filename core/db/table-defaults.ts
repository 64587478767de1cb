import type { Knex } from 'knex';
import { dialectOf } from './create-db.ts';

/**
 * Creates a table with engine settings that make MariaDB behave like SQLite:
 * utf8mb4 with a binary collation, so equality, uniqueness and ORDER BY on text are
 * byte-wise (case-sensitive) on both engines.
 */
export async function createTable(
  db: Knex,
  name: string,
  build: (table: Knex.CreateTableBuilder) => void,
): Promise<void> {
  const mysql = dialectOf(db) === 'mysql';
  await db.schema.createTable(name, (table) => {
    if (mysql) {
      table.engine('InnoDB');
      table.charset('utf8mb4');
      table.collate('utf8mb4_bin');
    }
    build(table);
  });
}

/** Long text that holds JSON documents (LONGTEXT on MariaDB, TEXT on SQLite). */
export function jsonColumn(table: Knex.TableBuilder, name: string): Knex.ColumnBuilder {
  return table.text(name, 'longtext');
}

/** Epoch-milliseconds timestamp column (see core/time.ts). */
export function timeColumn(table: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return table.bigInteger(name);
}

/** A record id column: prefixed ULIDs are 30-31 characters. */
export function idColumn(table: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return table.string(name, 40);
}
