import cron, { type ScheduledTask } from 'node-cron';
import type { Db } from '../db/create-db.ts';
import { fromJson } from '../db/json.ts';
import { RampartError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { ScanType } from '../plugin-api/index.ts';
import type { ScanPriority } from './scan-repository.ts';
import { scheduleRepository } from './schedule-repository.ts';
import type { ScanService } from './scan-service.ts';
import { errorMessage } from '../work/coerce-error.ts';

const SILENT = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * The scheduler role: one node-cron task per enabled schedule, kept in step with the
 * table (re-read every pollIntervalMs and when this process changes a schedule), so
 * schedules survive restarts and edits made by other processes. Several processes may
 * run the scheduler: each tick is claimed in the database first (claimTick), so it
 * queues exactly one scan. Ticks missed while no scheduler ran are not caught up.
 */
export class ScanScheduler {
  readonly #db: Db;
  readonly #scans: ScanService;
  readonly #logger: Logger;
  readonly #pollMs: number;
  readonly #tasks = new Map<string, { task: ScheduledTask; stamp: string }>();
  #timer: NodeJS.Timeout | null = null;
  #syncing: Promise<void> | null = null;

  constructor(deps: { db: Db; scans: ScanService; logger: Logger; pollIntervalMs: number }) {
    this.#db = deps.db;
    this.#scans = deps.scans;
    this.#logger = deps.logger;
    this.#pollMs = deps.pollIntervalMs;
  }

  get scheduled(): number {
    return this.#tasks.size;
  }

  async start(): Promise<void> {
    await this.sync();
    this.#timer = setInterval(() => void this.sync(), this.#pollMs);
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#syncing;
    for (const { task } of this.#tasks.values()) await task.destroy();
    this.#tasks.clear();
  }

  /** Aligns the cron tasks with the enabled schedules in the database. */
  async sync(): Promise<void> {
    if (this.#syncing) return this.#syncing;
    this.#syncing = (async () => {
      try {
        const rows = await scheduleRepository.enabled(this.#db);
        const seen = new Set<string>();
        for (const row of rows) {
          seen.add(row.id);
          const stamp = `${row.cron}|${row.timezone}|${row.updated_at}`;
          const current = this.#tasks.get(row.id);
          if (current?.stamp === stamp) continue;
          await current?.task.destroy();
          const task = cron.schedule(row.cron, (ctx) => void this.fire(row.id, ctx.date), { timezone: row.timezone, name: `schedule:${row.id}`, logger: SILENT });
          this.#tasks.set(row.id, { task, stamp });
        }
        for (const [id, { task }] of this.#tasks) {
          if (seen.has(id)) continue;
          await task.destroy();
          this.#tasks.delete(id);
        }
      } catch (err) {
        this.#logger.error({ err: errorMessage(err) }, 'schedule sync failed');
      } finally {
        this.#syncing = null;
      }
    })();
    return this.#syncing;
  }

  /** Runs one tick of a schedule if this process wins its claim; returns the queued scan id. */
  async fire(scheduleId: string, at: Date): Promise<string | null> {
    const tick = Math.floor(at.getTime() / 1000) * 1000;
    try {
      if (!(await scheduleRepository.claimTick(this.#db, scheduleId, tick))) return null;
      const row = await scheduleRepository.findAny(this.#db, scheduleId);
      if (!row) return null;
      try {
        const created = await this.#scans.create(
          row.tenant_id,
          { asset_id: row.asset_id, scan_type: row.scan_type as ScanType, priority: row.priority as ScanPriority, options: fromJson(row.options, {}) },
          { scheduleId },
        );
        await scheduleRepository.recordOutcome(this.#db, scheduleId, created.row.id, 'queued');
        return created.row.id;
      } catch (err) {
        const outcome = err instanceof RampartError ? `skipped: ${err.code}` : 'error';
        await scheduleRepository.recordOutcome(this.#db, scheduleId, null, outcome);
        if (!(err instanceof RampartError)) throw err;
        return null;
      }
    } catch (err) {
      this.#logger.error({ schedule_id: scheduleId, err: errorMessage(err) }, 'scheduled scan failed to start');
      return null;
    }
  }
}
