import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { loadConfig } from '../config/load-config.ts';
import { createApp, type App } from '../core/app.ts';
import { routePlugins } from '../plugins/index.ts';
import { createLogger } from '../core/logger.ts';
import { createRateLimiter } from '../core/rate-limit/rate-limiter.ts';
import { createTestDatabase } from '../test/_helpers/harness/test-db.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * Issue 3 benchmark: what the rate limiter costs per request. The same routes are
 * loaded with autocannon over loopback with the limiter off (rateLimit.enabled=false,
 * the baseline), on the memory store and on Redis, in one run; budgets are set so high
 * that nothing is refused, so only the bookkeeping is measured.
 *
 *   npm run bench -- rate-limit [--duration=3] [--connections=10] [--rounds=5]
 *   REDIS_URL=redis://127.0.0.1:6379 (default) · DATABASE_URL=mysql://... for MariaDB
 *
 * Routes: GET /bench/ping (no auth, trivial handler: the limiter's share is largest
 * here) and GET /api/user/me (bearer auth + two reads: a typical API call). Plus the
 * limiter alone: sequential charge() calls per second on each store.
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const DURATION = arg('duration', 3);
const CONNECTIONS = arg('connections', 10);
const ROUNDS = arg('rounds', 5);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const HUGE = { perMinute: 1_000_000, burst: 1_000_000 };

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Cannon = (options: { url: string; connections: number; duration: number; headers?: Record<string, string> }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

type Mode = 'off' | 'memory' | 'redis';

function configFor(mode: Mode, databaseUrl: string, token: string) {
  return loadConfig({
    env: { NODE_ENV: 'test' },
    overrides: {
      database: { url: databaseUrl },
      auth: { bootstrapAdminToken: token },
      http: { validateResponses: false },
      redis: { url: mode === 'redis' ? REDIS_URL : null },
      rateLimit: {
        enabled: mode !== 'off',
        tiers: { standard: { ...HUGE, streams: 5 }, premium: { ...HUGE, streams: 20 }, enterprise: { ...HUGE, streams: 100 } },
        anonymous: HUGE,
        redis: { keyPrefix: `rampart:bench:${process.pid}:`, failureMode: 'closed', connectTimeoutMs: 2000, commandTimeoutMs: 1000 },
      },
    },
  });
}

interface Measured extends CannonResult {
  /** This process's CPU time (servers and load generator) per request, µs. */
  cpuPerRequest: number;
}

async function load(app: App, path: string, token: string | null): Promise<Measured> {
  const url = `${app.server.info.uri}${path}`;
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await autocannon({ url, connections: CONNECTIONS, duration: 1, headers }); // warm-up
  const cpu = process.cpuUsage();
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  const used = process.cpuUsage(cpu);
  if (result.non2xx || result.errors) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { ...result, cpuPerRequest: (used.user + used.system) / result.requests.total };
}

async function chargesPerSecond(mode: 'memory' | 'redis', databaseUrl: string): Promise<number> {
  const limiter = await createRateLimiter(configFor(mode, databaseUrl, 'x'.repeat(32)), createLogger('silent'));
  const payer = { tenantId: 'ten_bench', tier: 'standard' as const };
  const n = mode === 'memory' ? 200_000 : 20_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await limiter.charge(payer);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await limiter.close();
  return n / seconds;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const adminToken = `bench-${'0'.repeat(40)}`;
  const modes = ['off', 'memory', 'redis'] as const;
  const paths = ['/bench/ping', '/api/user/me'];
  const runs: Record<Mode, Record<string, Measured[]>> = { off: {}, memory: {}, redis: {} };
  const apps: Partial<Record<Mode, App>> = {};
  try {
    // Three processes' worth of servers side by side, measured in interleaved rounds so
    // that background load on the machine hits every mode alike.
    for (const mode of modes) {
      const app = await createApp(configFor(mode, database.url, adminToken), { routes: routePlugins });
      app.server.route({ method: 'GET', path: '/bench/ping', options: { auth: false }, handler: () => ({ ok: true }) });
      // Only the HTTP server: background workers of three apps on one SQLite file would
      // contend for its write lock (better-sqlite3 waits synchronously) and skew everything.
      await app.server.start();
      apps[mode] = app;
    }
    const tenant = await apps.off!.ctx.services.admin.createTenant({ name: 'bench', tier: 'standard' });
    const token = (await apps.off!.ctx.services.admin.createToken(tenant.id, { name: 'bench', scopes: ['assets:read'], expiresAt: null })).token;
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < modes.length; k++) {
        const mode = modes[(k + round) % modes.length]!;
        for (const path of paths) {
          const result = await load(apps[mode]!, path, path === '/bench/ping' ? null : token);
          (runs[mode][path] ??= []).push(result);
          console.log(`round ${round + 1} ${mode} ${path} ${result.requests.average.toFixed(0)} req/s, ${result.cpuPerRequest.toFixed(0)} µs CPU/request`);
        }
      }
    }
    for (const app of Object.values(apps)) await app.stop();
    const rps = (mode: Mode, path: string) => median(runs[mode][path]!.map((r) => r.requests.average));
    const p50 = (mode: Mode, path: string) => median(runs[mode][path]!.map((r) => r.latency.p50));
    const p99 = (mode: Mode, path: string) => median(runs[mode][path]!.map((r) => r.latency.p99));
    const cpu = (mode: Mode, path: string) => median(runs[mode][path]!.map((r) => r.cpuPerRequest));
    const memoryOps = await chargesPerSecond('memory', database.url);
    const redisOps = await chargesPerSecond('redis', database.url);

    const lines = [
      `${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION} s per mode and route (each after 1 s warm-up), medians; autocannon over loopback in the same process; nothing refused (budgets set huge). ` +
        `**CPU µs/request** is this process's CPU time (servers + load generator, the same generator in every mode) per request: it does not count time other processes take from us, so it is the robust figure on a shared machine; **ratio** = CPU per request with the limiter ÷ without, **overhead** = the difference. ` +
        `Throughput (req/s, latency) is wall-clock and moves with the machine's load (load average at the end of the run: ${loadavg().map((l) => l.toFixed(1)).join(' ')}); Redis's own CPU is not in the figures.`,
      '',
      '| route | store | CPU µs/request | ratio vs off | overhead µs/request | req/s | req/s ratio | p50 ms | p99 ms |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ];
    for (const path of paths) {
      for (const mode of modes) {
        const base = mode === 'off';
        lines.push(
          `| ${path} | ${mode} | ${cpu(mode, path).toFixed(0)} | ${base ? '1.00' : (cpu(mode, path) / cpu('off', path)).toFixed(2)} | ${base ? '—' : (cpu(mode, path) - cpu('off', path)).toFixed(0)} | ` +
            `${rps(mode, path).toFixed(0)} | ${base ? '1.00' : (rps(mode, path) / rps('off', path)).toFixed(2)} | ${p50(mode, path)} | ${p99(mode, path)} |`,
        );
      }
    }
    lines.push('', `Limiter alone, sequential \`charge()\` (tier bucket): memory ${memoryOps.toFixed(0)}/s (${(1e6 / memoryOps).toFixed(1)} µs each), Redis ${redisOps.toFixed(0)}/s (${(1e6 / redisOps).toFixed(0)} µs each, one Lua round trip on loopback).`);
    writeReportSection('rate-limit', database.engine === 'mysql' ? 'MariaDB' : 'SQLite', lines);
    console.log(lines.join('\n'));
  } finally {
    for (const app of Object.values(apps)) await app.stop();
    await database.drop();
  }
}

await main();
