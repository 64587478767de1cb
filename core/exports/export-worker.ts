import type { ExportsConfig } from '../../config/exports-config.ts';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { LeaseWorker, type Lease } from '../work/lease-worker.ts';
import { exportRepository } from './export-repository.ts';
import type { ExportService } from './export-service.ts';

/**
 * Runs background exports one at a time per process on the lease worker
 * (core/work/lease-worker.ts: claim, heartbeat, takeover of a dead worker's job once its
 * lease lapses, release at shutdown), and sweeps expired files on its sweep. Its own part
 * is `#run`: write the file, or mark the job failed.
 */
export class ExportWorker {
  readonly #worker: LeaseWorker;

  constructor(
    private readonly db: Db,
    private readonly service: ExportService,
    config: ExportsConfig,
    private readonly logger: Logger,
  ) {
    this.#worker = new LeaseWorker({
      name: 'exports',
      db,
      queue: exportRepository.queue,
      logger,
      tokenTag: 'e',
      pollIntervalMs: config.pollIntervalMs,
      concurrency: () => 1,
      leaseMs: () => config.leaseMs,
      heartbeatMs: () => Math.max(500, Math.floor(config.leaseMs / 3)),
      run: (lease) => this.#run(lease),
      sweep: { everyMs: () => config.sweepIntervalMs, run: () => this.#sweep() },
    });
  }

  start(): void {
    this.#worker.start();
  }

  /** Looks for work now instead of at the next poll. */
  wake(): void {
    this.#worker.wake();
  }

  /** Aborts the job in progress; the lease worker puts it back in the queue. */
  async stop(): Promise<void> {
    await this.#worker.stop();
  }

  async #sweep(): Promise<void> {
    const removed = await this.service.sweepExpired();
    if (removed) this.logger.info({ removed }, 'expired exports deleted');
  }

  async #run(lease: Lease): Promise<void> {
    const job = await exportRepository.job(this.db, lease.id);
    if (!job) return;
    try {
      await this.service.run(job, lease.token, lease.signal);
    } catch (err) {
      // Stopped (shutdown: released for another worker; lease lost: another worker owns it): not a failure.
      if (lease.signal.aborted) return;
      this.logger.error({ err: { message: errorMessage(err) }, export_id: job.id }, 'export job failed');
      await exportRepository.fail(this.db, job.id, lease.token, 'The export could not be written.', Date.now());
    }
  }
}
