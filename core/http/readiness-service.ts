import { createRequire } from 'node:module';
import type { createClient } from 'redis';
import type { HealthConfig } from '../../config/health-config.ts';
import { dialectOf, pingDatabase, type Db, type Dialect } from '../db/create-db.ts';
import { migrationStatus } from '../db/migrate.ts';
import type { Logger } from '../logger.ts';
import { toIso } from '../time.ts';
import { errorMessage } from '../work/coerce-error.ts';
import type { LoopMonitor } from '../work/loop-monitor.ts';

// Loaded only when Redis is configured (about 0.6 s of CPU).
const requireLazily = createRequire(import.meta.url);

type Failure = 'unreachable' | 'timeout';

export interface Readiness {
  ready: boolean;
  checks: {
    database: { status: 'ok' | 'failed'; engine: Dialect; reason?: Failure };
    migrations: { status: 'current' | 'pending' | 'ahead' | 'unknown'; applied?: number; pending?: string[]; unknown?: string[] };
    redis: { status: 'ok' | 'failed' | 'not_configured'; reason?: Failure };
    loops: {
      status: 'ok' | 'lagging';
      max_lag_ms: number;
      services: Array<{ name: string; loops: number; status: 'ok' | 'lagging'; lag_ms: number; last_tick_at: string | null }>;
    };
  };
}

class Timeout extends Error {}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Timeout()), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

type RedisClient = ReturnType<typeof createClient>;

/**
 * GET /api/health/ready: can this process do its work? The database answers, the schema
 * is the one this code was written for (nothing pending), Redis answers when configured,
 * and no background loop of the process's roles is stuck or late beyond
 * `health.maxLoopLagMs`. The answer is for unauthenticated probes, so failures are named,
 * never quoted (a driver's message can carry hosts and user names); the cause is logged
 * once when a check starts failing.
 */
export class ReadinessService {
  readonly #failing = new Set<string>();
  #redis: RedisClient | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: { health: HealthConfig; redisUrl: string | null; loops: LoopMonitor; logger: Logger },
  ) {}

  async check(): Promise<Readiness> {
    const { health, loops } = this.options;
    const [database, redis] = await Promise.all([this.#database(), this.#pingRedis()]);
    const migrations = database.status === 'ok' ? await this.#migrations() : { status: 'unknown' as const };
    const services = loops.report(health.maxLoopLagMs).map((s) => ({ name: s.service, loops: s.loops, status: s.ok ? ('ok' as const) : ('lagging' as const), lag_ms: s.lagMs, last_tick_at: toIso(s.lastTickAt) }));
    const loopsOk = services.every((s) => s.status === 'ok');
    const checks: Readiness['checks'] = {
      database,
      migrations,
      redis,
      loops: { status: loopsOk ? 'ok' : 'lagging', max_lag_ms: health.maxLoopLagMs, services },
    };
    this.#note('loops', loopsOk, () => `lagging: ${services.filter((s) => s.status !== 'ok').map((s) => s.name).join(', ')}`);
    const ready = database.status === 'ok' && (migrations.status === 'current' || migrations.status === 'ahead') && redis.status !== 'failed' && loopsOk;
    return { ready, checks };
  }

  /** Closes the Redis connection readiness opened, if any. */
  async close(): Promise<void> {
    this.#redis?.destroy();
    this.#redis = null;
  }

  async #database(): Promise<Readiness['checks']['database']> {
    const engine = dialectOf(this.db);
    try {
      await within(this.options.health.checkTimeoutMs, pingDatabase(this.db));
      this.#note('database', true);
      return { status: 'ok', engine };
    } catch (err) {
      this.#note('database', false, () => errorMessage(err) || 'timed out');
      return { status: 'failed', engine, reason: err instanceof Timeout ? 'timeout' : 'unreachable' };
    }
  }

  async #migrations(): Promise<Readiness['checks']['migrations']> {
    try {
      const s = await within(this.options.health.checkTimeoutMs, migrationStatus(this.db));
      const status = s.pending.length ? 'pending' : s.unknown.length ? 'ahead' : 'current';
      this.#note('migrations', status !== 'pending', () => `pending: ${s.pending.join(', ')}`);
      return { status, applied: s.applied, pending: s.pending, unknown: s.unknown };
    } catch (err) {
      this.#note('migrations', false, () => errorMessage(err) || 'timed out');
      return { status: 'unknown' };
    }
  }

  async #pingRedis(): Promise<Readiness['checks']['redis']> {
    const url = this.options.redisUrl;
    if (!url) return { status: 'not_configured' };
    try {
      // One connection of its own, kept between probes; commands fail at once while it is down.
      if (!this.#redis) {
        const { createClient: connect } = requireLazily('redis') as { createClient: typeof createClient };
        const client: RedisClient = connect({ url, disableOfflineQueue: true, socket: { connectTimeout: this.options.health.checkTimeoutMs, reconnectStrategy: (n: number) => Math.min(100 * 2 ** n, 5000) } });
        client.on('error', () => undefined); // reported through the failing PING below
        this.#redis = client;
        await within(this.options.health.checkTimeoutMs, client.connect());
      }
      await within(this.options.health.checkTimeoutMs, this.#redis.ping());
      this.#note('redis', true);
      return { status: 'ok' };
    } catch (err) {
      this.#note('redis', false, () => errorMessage(err) || 'timed out');
      return { status: 'failed', reason: err instanceof Timeout ? 'timeout' : 'unreachable' };
    }
  }

  /** Logs a check's change of state once, not at every probe. */
  #note(check: string, ok: boolean, why?: () => string): void {
    if (ok === !this.#failing.has(check)) return;
    if (ok) {
      this.#failing.delete(check);
      this.options.logger.info({ check }, 'readiness check passes again');
    } else {
      this.#failing.add(check);
      this.options.logger.warn({ check, err: why?.() }, 'readiness check failing');
    }
  }
}
