import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import knexPkg from 'knex';
import { mysqlConnection } from '../../../core/db/create-db.ts';
import { copySqliteTemplate, createMysqlFromTemplate } from './database-template.ts';

export interface TestDatabase {
  url: string;
  engine: 'sqlite' | 'mysql';
  drop(): Promise<void>;
}

/**
 * A fresh database for one test app: a new SQLite file in a temp folder, or, when
 * DATABASE_URL points at MariaDB/MySQL, a new database on that server (so concurrent test
 * files never share tables). Empty, or with `migrated` a copy of a database every migration
 * has run on (database-template.ts), which is what the app's own start would make of an
 * empty one. Dropped by `drop()`.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (base && /^(mysql|mariadb):/.test(base)) {
    const name = `rampart_t_${randomBytes(6).toString('hex')}`;
    if (options.migrated) {
      await createMysqlFromTemplate(base, name);
    } else {
      const admin = knexPkg({ client: 'mysql2', connection: { ...mysqlConnection(base), database: undefined } });
      try {
        await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      } finally {
        await admin.destroy();
      }
    }
    const url = new URL(base.replace(/^mariadb:/, 'mysql:'));
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      engine: 'mysql',
      async drop() {
        const db = knexPkg({ client: 'mysql2', connection: { ...mysqlConnection(base), database: undefined } });
        try {
          await db.raw(`DROP DATABASE IF EXISTS \`${name}\``);
        } finally {
          await db.destroy();
        }
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'rampart-test-'));
  if (options.migrated) await copySqliteTemplate(join(dir, 'rampart.db'));
  return {
    url: `sqlite:${join(dir, 'rampart.db')}`,
    engine: 'sqlite',
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
