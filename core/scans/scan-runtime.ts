import type { Config } from '../../config/config-schema.ts';
import type { Db } from '../db/create-db.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { CheckPool } from './check-pool.ts';
import type { FindingService } from '../findings/finding-service.ts';
import { ScanCallbackWorker } from './scan-callback-worker.ts';
import { ScanScheduler } from './scan-scheduler.ts';
import { ScanService } from './scan-service.ts';
import { ScanWorker } from './scan-worker.ts';
import { ScheduleService } from './schedule-service.ts';
import type { WebhookRuntime } from '../webhooks/webhook-runtime.ts';

/** The roles a process can play (`--role`); `all` is every one. */
export type Role = 'api' | 'worker' | 'scheduler';
export const ROLES: readonly Role[] = ['api', 'worker', 'scheduler'];

/** Scan services for the API, plus the worker (pool, claims, callbacks) and scheduler roles. */
export interface ScanRuntime {
  scans: ScanService;
  schedules: ScheduleService;
  /** Present while the worker role runs. */
  worker: ScanWorker | null;
  pool: CheckPool | null;
  callbacks: ScanCallbackWorker | null;
  scheduler: ScanScheduler | null;
  start(roles: readonly Role[]): Promise<void>;
  stop(): Promise<void>;
}

export function createScanRuntime(deps: { config: Config; db: Db; outbox: Outbox; plugins: PluginRegistry; logger: Logger; findings: FindingService; webhooks: WebhookRuntime }): ScanRuntime {
  const { config, db, outbox, plugins, logger, findings, webhooks } = deps;
  const runtime: ScanRuntime = {
    scans: new ScanService({
      db, outbox, plugins, config: config.scans, outbound: webhooks.outbound, secretBox: webhooks.secretBox,
      onQueued: () => runtime.worker?.wake(),
      onCancelled: (id) => runtime.worker?.cancelled(id),
    }),
    schedules: null as unknown as ScheduleService,
    worker: null,
    pool: null,
    callbacks: null,
    scheduler: null,
    async start(roles) {
      if (roles.includes('worker') && !runtime.worker) {
        runtime.pool = new CheckPool({ maxThreads: config.scans.pool.maxThreads });
        runtime.worker = new ScanWorker({ db, outbox, plugins, config: config.scans, pool: runtime.pool, findings, logger });
        runtime.callbacks = new ScanCallbackWorker({ db, client: webhooks.outbound, box: webhooks.secretBox, logger, config: config.scans.callbacks, signatureHeader: config.webhooks.signatureHeader });
        runtime.worker.start();
        runtime.callbacks.start();
      }
      if (roles.includes('scheduler') && !runtime.scheduler) {
        runtime.scheduler = new ScanScheduler({ db, scans: runtime.scans, logger, pollIntervalMs: config.scans.scheduler.pollIntervalMs });
        await runtime.scheduler.start();
      }
    },
    async stop() {
      await runtime.scheduler?.stop();
      await runtime.worker?.stop();
      await runtime.callbacks?.stop();
      await runtime.pool?.destroy();
      runtime.scheduler = null;
      runtime.worker = null;
      runtime.callbacks = null;
      runtime.pool = null;
    },
  };
  runtime.schedules = new ScheduleService(db, runtime.scans, config.scans.scheduler.maxPerTenant, () => void runtime.scheduler?.sync());
  return runtime;
}
