import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Connection } from 'mysql2/promise';
import { createDb, mysqlConnection } from '../../../core/db/create-db.ts';
import { migrateLatest } from '../../../core/db/migrate.ts';
import { migrations } from '../../../core/db/migrations/index.ts';

// Migrating a new database for every test app cost 1–2.5 s on MariaDB (196 DDL statements:
// knex adds each index and foreign key by its own ALTER TABLE, each one fsynced) and 40–100 ms
// on SQLite. A test database that needs the schema is instead copied from a template migrated
// once per schema: on MariaDB the template's own CREATE TABLE statements (49, one round trip)
// and its rows; on SQLite a file copy. The template's name carries a hash of the migrations'
// source and of every module they import, so a changed migration gets a new template.
// test/architecture/database-template.test.ts checks a copy against a database migrated from
// scratch, table by table.

const MIGRATIONS_INDEX = fileURLToPath(new URL('../../../core/db/migrations/index.ts', import.meta.url));
const KNEX_VERSION = (JSON.parse(readFileSync(fileURLToPath(new URL('../../../node_modules/knex/package.json', import.meta.url)), 'utf8')) as { version: string }).version;

/** A hash of the migrations and every relative import they reach (the DDL helpers, the dialect switch), and knex's version. */
export function schemaHash(): string {
  const hash = createHash('sha256').update(`knex ${KNEX_VERSION}\n`);
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    hash.update(`${file.slice(MIGRATIONS_INDEX.length - 'core/db/migrations/index.ts'.length)}\n${source}\n`);
    for (const m of source.matchAll(/from '(\.[^']+)'/g)) visit(resolve(dirname(file), m[1]!));
  };
  visit(MIGRATIONS_INDEX);
  return hash.digest('hex').slice(0, 16);
}

let sqliteTemplate: string | undefined;

/** Writes a migrated copy of the SQLite template to `file`. */
export async function copySqliteTemplate(file: string): Promise<void> {
  sqliteTemplate ??= await ensureSqliteTemplate();
  copyFileSync(sqliteTemplate, file);
}

async function ensureSqliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), 'rampart-test-templates');
  const file = join(dir, `sqlite-${schemaHash()}.db`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  // Built under a name of its own and renamed into place: a concurrent process either sees
  // no template (and builds its own, the last rename wins) or a complete one.
  const building = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const db = createDb(`sqlite:${building}`);
  try {
    await migrateLatest(db);
    // One self-contained file: the copies switch themselves to WAL when opened.
    await db.raw('PRAGMA journal_mode = DELETE');
  } finally {
    await db.destroy();
  }
  renameSync(building, file);
  rmSync(`${building}-wal`, { force: true });
  rmSync(`${building}-shm`, { force: true });
  return file;
}

interface MysqlTemplate {
  /** The template's CREATE TABLE statements (references to its own tables are unqualified). */
  creates: string[];
  /** INSERT … SELECT of the tables the migrations wrote rows into (knex's own record). */
  copies: string[];
}

/**
 * A connection to the server of `base`, outside any database (knex's settings; their types differ
 * only in `flags`). mysql2 is imported here, on first use: the SQLite pass never loads its modules.
 */
async function serverConnection(base: string, multipleStatements = false): Promise<Connection> {
  const { host, port, user, password, charset, timezone } = mysqlConnection(base);
  const { default: mysql } = await import('mysql2/promise');
  return mysql.createConnection({ host, port, user, password, charset, timezone, multipleStatements });
}

const mysqlTemplates = new Map<string, Promise<MysqlTemplate>>();

/** Creates database `name` on the server of `base` as a copy of the migrated template. */
export async function createMysqlFromTemplate(base: string, name: string): Promise<void> {
  let template = mysqlTemplates.get(base);
  if (!template) {
    template = ensureMysqlTemplate(base);
    mysqlTemplates.set(base, template);
    template.catch(() => mysqlTemplates.delete(base));
  }
  const { creates, copies } = await template;
  const conn = await serverConnection(base, true);
  try {
    await conn.query(
      [
        `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
        `USE \`${name}\``,
        'SET FOREIGN_KEY_CHECKS = 0',
        ...creates,
        ...copies,
        'SET FOREIGN_KEY_CHECKS = 1',
      ].join(';\n'),
    );
  } catch (err) {
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => undefined);
    throw err;
  } finally {
    await conn.end();
  }
}

async function ensureMysqlTemplate(base: string): Promise<MysqlTemplate> {
  const template = `rampart_tpl_${schemaHash()}`;
  const conn = await serverConnection(base);
  try {
    // Test processes start together: one builds the template, the others wait for it. The
    // lock is the connection's, so a process that dies while building frees it, and its
    // half-built template (not every migration recorded) is built again by the next.
    const [[lock]] = (await conn.query("SELECT GET_LOCK('rampart-test-template', 600) AS got")) as unknown as [[{ got: number | null }]];
    if (lock!.got !== 1) throw new Error('another test process has been building the database template for 600 s');
    try {
      if (!(await mysqlTemplateComplete(conn, template))) {
        await conn.query(`DROP DATABASE IF EXISTS \`${template}\``);
        await conn.query(`CREATE DATABASE \`${template}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
        const url = new URL(base.replace(/^mariadb:/, 'mysql:'));
        url.pathname = `/${template}`;
        const db = createDb(url.toString());
        try {
          await migrateLatest(db);
        } finally {
          await db.destroy();
        }
      }
    } finally {
      await conn.query("SELECT RELEASE_LOCK('rampart-test-template')");
    }
    const [tables] = (await conn.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [template])) as unknown as [Array<{ name: string }>];
    const creates: string[] = [];
    const copies: string[] = [];
    for (const { name } of tables) {
      const [[row]] = (await conn.query(`SHOW CREATE TABLE \`${template}\`.\`${name}\``)) as unknown as [[Record<string, string>]];
      creates.push(row!['Create Table']!);
      const [[count]] = (await conn.query(`SELECT COUNT(*) AS n FROM \`${template}\`.\`${name}\``)) as unknown as [[{ n: number }]];
      if (Number(count!.n) > 0) copies.push(`INSERT INTO \`${name}\` SELECT * FROM \`${template}\`.\`${name}\``);
    }
    return { creates, copies };
  } finally {
    await conn.end();
  }
}

/** Whether every migration is recorded in the template and none holds knex's lock. */
async function mysqlTemplateComplete(conn: Connection, template: string): Promise<boolean> {
  const [present] = (await conn.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_name IN (?, ?)', [template, 'knex_migrations', 'knex_migrations_lock'])) as unknown as [Array<{ name: string }>];
  if (present.length < 2) return false;
  const [applied] = (await conn.query(`SELECT name FROM \`${template}\`.knex_migrations`)) as unknown as [Array<{ name: string }>];
  const [[lock]] = (await conn.query(`SELECT MAX(is_locked) AS locked FROM \`${template}\`.knex_migrations_lock`)) as unknown as [[{ locked: number | null }]];
  const names = new Set(applied.map((r) => r.name));
  return !lock!.locked && applied.length === migrations.length && migrations.every((m) => names.has(m.name));
}
