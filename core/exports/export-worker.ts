import type { ExportsConfig } from '../../config/exports-config.ts';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { claimToken } from '../work/instance-id.ts';
import { PollLoop } from '../work/poll-loop.ts';
import { exportRepository } from './export-repository.ts';
import type { ExportJob } from './export-views.ts';
import type { ExportService } from './export-service.ts';

/**
 * Runs background exports one at a time per process: polls for queued jobs (and is
 * woken when one is created), renews the job's lease while it writes, and sweeps
 * expired files. Several processes can run it: each claim has its own lease token and
 * a job whose worker died is taken over once its lease lapses. `stop()` aborts the
 * job in progress and puts it back in the queue.
 */
export class ExportWorker {
  readonly #loop: PollLoop;
  #abort: AbortController | null = null;
  #lastSweep = 0;

  constructor(
    private readonly db: Db,
    private readonly service: ExportService,
    private readonly config: ExportsConfig,
    private readonly logger: Logger,
  ) {
    this.#loop = new PollLoop({
      round: () => this.#round(),
      intervalMs: config.pollIntervalMs,
      onError: (err) => logger.error({ err: { message: err.message } }, 'export worker error'),
    });
  }

  start(): void {
    this.#loop.start();
  }

  /** Looks for work now instead of at the next poll. */
  wake(): void {
    this.#loop.wake();
  }

  async stop(): Promise<void> {
    const stopping = this.#loop.stop();
    this.#abort?.abort();
    await stopping;
  }

  async #round(): Promise<void> {
    if (Date.now() - this.#lastSweep >= this.config.sweepIntervalMs) {
      this.#lastSweep = Date.now();
      const removed = await this.service.sweepExpired();
      if (removed) this.logger.info({ removed }, 'expired exports deleted');
    }
    while (this.#loop.running) {
      const token = claimToken('e');
      const job = await exportRepository.claim(this.db, token, Date.now(), this.config.leaseMs);
      if (!job) return;
      await this.#runOne(job, token);
    }
  }

  async #runOne(job: ExportJob, token: string): Promise<void> {
    const abort = new AbortController();
    this.#abort = abort;
    const renew = setInterval(() => {
      exportRepository
        .renewLease(this.db, job.id, token, Date.now() + this.config.leaseMs)
        .then((held) => {
          if (!held) abort.abort();
        })
        .catch(() => {});
    }, Math.max(500, Math.floor(this.config.leaseMs / 3)));
    try {
      await this.service.run(job, token, abort.signal);
    } catch (err) {
      // Shutting down: give the job back. Lease lost: another worker owns it now.
      if (!this.#loop.running) await exportRepository.requeue(this.db, job.id, token, Date.now());
      else if (!abort.signal.aborted) {
        this.logger.error({ err: { message: errorMessage(err) }, export_id: job.id }, 'export job failed');
        await exportRepository.fail(this.db, job.id, token, 'The export could not be written.', Date.now());
      }
    } finally {
      clearInterval(renew);
      this.#abort = null;
    }
  }
}
