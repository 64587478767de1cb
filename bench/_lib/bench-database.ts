import knexPkg from 'knex';
import { mysqlConnection } from '../../core/db/create-db.ts';

/**
 * Empties (drops and creates) the MariaDB database a benchmark runs on and returns its
 * URL. Only databases named `rampart_bench*` are touched: the URL's own name if it has
 * one, `fallbackName` otherwise.
 */
export async function freshBenchDatabase(url: string, fallbackName: string): Promise<string> {
  const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
  const name = u.pathname.replace(/^\//, '') || fallbackName;
  if (!/^rampart_bench\w*$/.test(name)) throw new Error(`Refusing to reset database "${name}": the benchmark only uses databases named rampart_bench*`);
  const admin = knexPkg({ client: 'mysql2', connection: { ...mysqlConnection(url), database: undefined } });
  try {
    await admin.raw(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  } finally {
    await admin.destroy();
  }
  u.pathname = `/${name}`;
  return u.toString();
}
