import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ExportsConfig } from '../../config/exports-config.ts';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { exportRepository } from './export-repository.ts';
import type { ExportService } from './export-service.ts';

/**
 * Runs background exports one at a time per process: polls for queued jobs (and is
 * woken when one is created), renews the job's lease while it writes, and sweeps
 * expired files. Several processes can run it: the claim is a conditional UPDATE and
 * a job whose worker died is taken over once its lease lapses. `stop()` aborts the
 * job in progress and puts it back in the queue.
 */
export class ExportWorker {
  readonly id = `exports-${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private busy: Promise<void> | null = null;
  private abort: AbortController | null = null;
  private lastSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly service: ExportService,
    private readonly config: ExportsConfig,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Looks for work now instead of at the next poll. */
  wake(): void {
    if (!this.stopped && !this.busy) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort?.abort();
    await this.busy;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.busy) return;
      this.busy = this.tick().finally(() => {
        this.busy = null;
        this.schedule(this.config.pollIntervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      if (Date.now() - this.lastSweep >= this.config.sweepIntervalMs) {
        this.lastSweep = Date.now();
        const removed = await this.service.sweepExpired();
        if (removed) this.logger.info({ removed }, 'expired exports deleted');
      }
      while (!this.stopped) {
        const job = await exportRepository.claim(this.db, this.id, Date.now(), this.config.leaseMs);
        if (!job) return;
        await this.runOne(job);
      }
    } catch (err) {
      this.logger.error({ err: { message: (err as Error).message } }, 'export worker error');
    }
  }

  private async runOne(job: NonNullable<Awaited<ReturnType<typeof exportRepository.claim>>>): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const renew = setInterval(() => {
      exportRepository
        .renewLease(this.db, job.id, this.id, Date.now() + this.config.leaseMs)
        .then((held) => {
          if (!held) abort.abort();
        })
        .catch(() => {});
    }, Math.max(500, Math.floor(this.config.leaseMs / 3)));
    try {
      await this.service.run(job, this.id, abort.signal);
    } catch (err) {
      // Shutting down: give the job back. Lease lost: another worker owns it now.
      if (this.stopped) await exportRepository.requeue(this.db, job.id, this.id, Date.now());
      else if (!abort.signal.aborted) {
        this.logger.error({ err: { message: (err as Error).message }, export_id: job.id }, 'export job failed');
        await exportRepository.fail(this.db, job.id, this.id, 'The export could not be written.', Date.now());
      }
    } finally {
      clearInterval(renew);
      this.abort = null;
    }
  }
}
