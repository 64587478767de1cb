import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import type { BackgroundService } from '../work/background-registry.ts';
import { ROLES, type Role } from '../work/roles.ts';
import { CheckPool } from './check-pool.ts';
import type { FindingService } from '../findings/finding-service.ts';
import { ScanScheduler } from './scan-scheduler.ts';
import { ScanService } from './scan-service.ts';
import { ScanWorker } from './scan-worker.ts';
import { ScheduleService } from './schedule-service.ts';

/** The scan engine's background parts: the worker role (pool, claims; callbacks are webhook deliveries) and the scheduler role. */
export interface ScanBackground {
  /** Present while the worker role runs. */
  worker: ScanWorker | null;
  pool: CheckPool | null;
  /** Present while the scheduler role runs. */
  scheduler: ScanScheduler | null;
  /** Starts what `roles` run here and is not running yet. */
  start(roles: readonly Role[]): Promise<void>;
  /** Stops what `roles` run (default: everything). */
  stop(roles?: readonly Role[]): Promise<void>;
  /** One registry entry per role. */
  services(): BackgroundService[];
}

/** Scan services for the API, and the background parts. */
export interface ScanRuntime {
  scans: ScanService;
  schedules: ScheduleService;
  background: ScanBackground;
}

export function createScanRuntime(deps: { config: Config; db: Db; outbox: Outbox; plugins: PluginRegistry; logger: Logger; findings: FindingService; outbound: OutboundHttpClient; secretBox: SecretBox; onCheck?: (checkId: string, seconds: number) => void }): ScanRuntime {
  const { config, db, outbox, plugins, logger, findings, outbound, secretBox } = deps;
  const bg: ScanBackground = {
    worker: null,
    pool: null,
    scheduler: null,
    async start(roles) {
      if (roles.includes('worker') && !bg.worker) {
        bg.pool = new CheckPool({ maxThreads: config.scans.pool.maxThreads });
        bg.worker = new ScanWorker({ db, outbox, plugins, config: config.scans, pool: bg.pool, findings, logger, onCheck: deps.onCheck });
        bg.worker.start();
      }
      if (roles.includes('scheduler') && !bg.scheduler) {
        bg.scheduler = new ScanScheduler({ db, scans, logger, pollIntervalMs: config.scans.scheduler.pollIntervalMs });
        await bg.scheduler.start();
      }
    },
    async stop(roles = ROLES) {
      if (roles.includes('scheduler')) {
        await bg.scheduler?.stop();
        bg.scheduler = null;
      }
      if (roles.includes('worker')) {
        await bg.worker?.stop();
        await bg.pool?.destroy();
        bg.worker = null;
        bg.pool = null;
      }
    },
    services: () =>
      (['worker', 'scheduler'] as const).map((role) => ({ name: `scans:${role}`, roles: [role], start: () => bg.start([role]), stop: () => bg.stop([role]) })),
  };
  const scans = new ScanService({
    db, outbox, plugins, config: config.scans, outbound, secretBox,
    onQueued: () => bg.worker?.wake(),
    onCancelled: (id) => bg.worker?.cancelled(id),
  });
  const schedules = new ScheduleService(db, scans, config.scans.scheduler.maxPerTenant, () => void bg.scheduler?.sync());
  return { scans, schedules, background: bg };
}
