import { createRequire } from 'node:module';
import { writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Hapi from '@hapi/hapi';
import { destination } from 'pino';
import type { Knex } from 'knex';
import { loadConfig } from '../../config/load-config.ts';
import { createApp, type App } from '../../core/app.ts';
import { createLogger } from '../../core/logger.ts';
import { routePlugins } from '../../plugins/index.ts';
import { findingRepository } from '../../core/findings/finding-repository.ts';
import { generateToken } from '../../core/auth/token-codec.ts';
import { inlineLimit } from '../../core/db/inline-limit.ts';
import { createTestDatabase, type TestDatabase } from '../../test/_helpers/harness/test-db.ts';
import { seedFindings } from './seed-findings.ts';

/**
 * The server side of bench/http.ts, in its own process (started by it, talking over
 * IPC) so the load generator never shares an event loop with what it measures and a
 * CPU profile (`--cpu-prof`) covers only the servers.
 *
 * Two servers on one fresh database (SQLite file, or MariaDB when DATABASE_URL says so):
 *  - Rampart as in production (config/default.json: response validation off, info
 *    logs, the rate limiter on with the memory store), budgets so large nothing is
 *    refused; only the HTTP server runs (no background workers);
 *  - a bare hapi server whose routes run the same SQL as Rampart's repositories
 *    (taken from the repositories' own knex builders with toSQL, so they cannot drift)
 *    through the driver's prepared statements: better-sqlite3 `prepare` once, mysql2
 *    `execute`; no auth, no limiter, no validation, no logs.
 */

export interface ServerInfo {
  engine: 'SQLite' | 'MariaDB';
  rampart: string;
  bare: string;
  token: string;
  assetId: string;
  /** Findings whose status the PUT scenario moves back and forth. */
  findingIds: string[];
  listQuery: string;
  findingCount: number;
}

const BENCH_SCOPES = ['assets:read', 'findings:read', 'findings:write'] as const;
const HUGE = { perMinute: 1_000_000, burst: 1_000_000 };
export const LIST_QUERY = 'status=open&per_page=20';
const LIST_FILTERS = { status: 'open' as const };
const LIST_SORT = { sortBy: 'discovered_at' as const, sortOrder: 'desc' as const };

interface Native {
  sql: string;
  bindings: unknown[];
}
const nativeOf = (q: Knex.QueryBuilder | Knex.Raw): Native => q.toSQL().toNative() as Native;

// Placeholder values in the builders, swapped for the request's values at run time.
const ID = '\u0000id';
const STATUS = '\u0000status';
const NOW = -1;
const bind = (n: Native, values: Map<unknown, unknown>) => n.bindings.map((b) => (values.has(b) ? values.get(b) : b));

/** The same statements through the raw driver, prepared once. */
interface BareDb {
  one(n: Native, bindings?: unknown[]): Promise<Record<string, unknown> | undefined>;
  all(n: Native, bindings?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs `work` in one transaction on one connection. */
  transaction(work: (run: (n: Native, bindings: unknown[]) => Promise<unknown>, one: (n: Native, bindings: unknown[]) => Promise<Record<string, unknown> | undefined>) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);

function bareSqlite(file: string): BareDb {
  const Database = require('better-sqlite3') as new (file: string) => {
    pragma(s: string): unknown;
    prepare(sql: string): { get(...b: unknown[]): unknown; all(...b: unknown[]): unknown[]; run(...b: unknown[]): unknown };
    exec(sql: string): void;
    close(): void;
  };
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  const cache = new Map<string, ReturnType<typeof db.prepare>>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s;
  };
  return {
    async one(n, b = n.bindings) {
      return stmt(n.sql).get(...b) as Record<string, unknown> | undefined;
    },
    async all(n, b = n.bindings) {
      return stmt(n.sql).all(...b) as Record<string, unknown>[];
    },
    async transaction(work) {
      db.exec('BEGIN IMMEDIATE');
      try {
        await work(async (n, b) => stmt(n.sql).run(...b), async (n, b) => stmt(n.sql).get(...b) as Record<string, unknown> | undefined);
        db.exec('COMMIT');
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      }
    },
    async close() {
      db.close();
    },
  };
}

async function bareMysql(url: string): Promise<BareDb> {
  const { mysqlConnection } = await import('../../core/db/create-db.ts');
  const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
  // The same pool size as Rampart's knex pool (core/db/create-db.ts).
  const pool = mysql.createPool({ ...(mysqlConnection(url) as object), connectionLimit: 10 });
  return {
    async one(n, b = n.bindings) {
      const [rows] = await pool.execute(n.sql, b as never);
      return (rows as Record<string, unknown>[])[0];
    },
    async all(n, b = n.bindings) {
      const [rows] = await pool.execute(n.sql, b as never);
      return rows as Record<string, unknown>[];
    },
    async transaction(work) {
      const conn = await pool.getConnection();
      try {
        await conn.query('START TRANSACTION');
        await work(
          async (n, b) => conn.execute(n.sql, b as never),
          async (n, b) => ((await conn.execute(n.sql, b as never))[0] as Record<string, unknown>[])[0],
        );
        await conn.query('COMMIT');
      } catch (err) {
        await conn.query('ROLLBACK');
        throw err;
      } finally {
        conn.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

async function seed(app: App): Promise<{ tenantId: string; token: string; assetId: string; findingIds: string[]; findingCount: number }> {
  const { admin } = app.ctx.services;
  const tenant = await admin.createTenant({ name: 'bench', tier: 'standard' });
  const token = (await admin.createToken(tenant.id, { name: 'bench', scopes: [...BENCH_SCOPES], expiresAt: null })).token;
  // 20 assets × 100 findings with the seed's realistic severity/status mix.
  const seeded = await seedFindings(app.ctx.db, tenant.id, 20, 2000, () => undefined);
  const asset = (await app.ctx.db('assets').where({ tenant_id: tenant.id }).orderBy('id').first('id')) as { id: string };
  const findings = (await app.ctx.db('findings').where({ tenant_id: tenant.id, status: 'open' }).orderBy('id').limit(20).select('id')) as Array<{ id: string }>;
  return { tenantId: tenant.id, token, assetId: asset.id, findingIds: findings.map((f) => f.id), findingCount: seeded.findings };
}

async function bareServer(app: App, bare: BareDb, tenantId: string): Promise<Hapi.Server> {
  const db = app.ctx.db;
  const mysql = app.ctx.db.client.config.client === 'mysql2';
  // On SQLite, the LIMIT written into the text as Rampart's SQLite client does (core/db/inline-limit.ts): a bound
  // LIMIT makes SQLite plan the statement again on every run, which would slow the baseline, not Rampart.
  const native = (q: Knex.QueryBuilder | Knex.Raw): Native => {
    const n = nativeOf(q);
    return mysql ? n : (inlineLimit(n.sql, n.bindings) as Native);
  };
  const assetById = native(db('assets').where({ tenant_id: tenantId, id: ID }).first());
  const count = native(findingRepository.query(db, tenantId, LIST_FILTERS).count({ n: '*' }).first());
  const page = native(findingRepository.listQuery(db, tenantId, LIST_FILTERS, LIST_SORT).limit(20).offset(0));
  const findingForUpdate = native(db('findings').where({ tenant_id: tenantId, id: ID }).first('id', 'status').modify((q) => (mysql ? q.forUpdate() : q)));
  const updateStatus = native(db('findings').where({ tenant_id: tenantId, id: ID }).update({ status: STATUS, updated_by: 'bench', updated_at: NOW }));

  const server = Hapi.server({ host: '127.0.0.1', port: 0, debug: false });
  server.route({
    method: 'GET',
    path: '/api/assets/{id}',
    handler: async (request, h) => {
      const row = await bare.one(assetById, bind(assetById, new Map([[ID, request.params.id]])));
      return row ? { data: row } : h.response({ error: 'not found' }).code(404);
    },
  });
  server.route({
    method: 'GET',
    path: '/api/findings',
    handler: async () => {
      const n = await bare.one(count);
      const rows = await bare.all(page);
      return { data: rows, meta: { total: Number(n?.n ?? 0), page: 1, per_page: 20 } };
    },
  });
  server.route({
    method: 'PUT',
    path: '/api/findings/{id}/status',
    handler: async (request, h) => {
      const status = (request.payload as { status: string }).status;
      let found = false;
      await bare.transaction(async (run, one) => {
        const row = await one(findingForUpdate, bind(findingForUpdate, new Map([[ID, request.params.id]])));
        if (!row) return;
        found = true;
        await run(updateStatus, bind(updateStatus, new Map<unknown, unknown>([[ID, request.params.id], [STATUS, status], [NOW, Date.now()]])));
      });
      return found ? { data: { id: request.params.id, status } } : h.response({ error: 'not found' }).code(404);
    },
  });
  await server.start();
  return server;
}

async function main(): Promise<void> {
  const onlyRampart = process.argv.includes('--only-rampart');
  const database: TestDatabase = await createTestDatabase();
  const config = loadConfig({
    env: {},
    overrides: {
      server: { host: '127.0.0.1', port: 0 },
      database: { url: database.url },
      auth: { bootstrapAdminToken: generateToken() },
      rateLimit: {
        enabled: true,
        tiers: { standard: { ...HUGE, streams: 5 }, premium: { ...HUGE, streams: 20 }, enterprise: { ...HUGE, streams: 100 } },
        anonymous: HUGE,
      },
    },
  });
  // Production logging (info, one access line per request), written to /dev/null
  // synchronously as pino does to stdout, so its cost stays in the figures.
  const logger = createLogger(config.log.level, destination({ dest: '/dev/null', sync: true }) as unknown as NodeJS.WritableStream);
  const app = await createApp(config, { routes: routePlugins, logger });
  const seeded = await seed(app);
  await app.server.start();
  let bare: BareDb | null = null;
  let bareHapi: Hapi.Server | null = null;
  if (!onlyRampart) {
    bare = database.engine === 'mysql' ? await bareMysql(database.url) : bareSqlite(database.url.slice('sqlite:'.length));
    bareHapi = await bareServer(app, bare, seeded.tenantId);
  }
  const info: ServerInfo = {
    engine: database.engine === 'mysql' ? 'MariaDB' : 'SQLite',
    rampart: app.server.info.uri,
    bare: bareHapi?.info.uri ?? '',
    token: seeded.token,
    assetId: seeded.assetId,
    findingIds: seeded.findingIds,
    listQuery: LIST_QUERY,
    findingCount: seeded.findingCount,
  };
  process.send!({ ready: info });
  const session = new Session();
  process.on('message', async (message: { stop?: boolean; cpu?: boolean; profile?: 'start' | string }) => {
    if (message.cpu) {
      process.send!({ cpu: process.cpuUsage() });
      return;
    }
    // The profiler runs only while the parent loads one route, not over start-up and seeding.
    if (message.profile === 'start') {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      process.send!({ profiling: true });
      return;
    }
    if (message.profile) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      writeFileSync(message.profile, JSON.stringify(profile));
      process.send!({ profiled: message.profile });
      return;
    }
    if (!message.stop) return;
    try {
      await bareHapi?.stop();
      await bare?.close();
      await app.stop();
      await database.drop();
    } catch (err) {
      writeSync(2, `http-servers: ${(err as Error).message}\n`);
    }
    process.exit(0);
  });
}

await main();
