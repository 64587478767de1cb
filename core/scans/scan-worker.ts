import { scanRepository } from './scan-repository.ts';
import { LeaseWorker } from '../work/lease-worker.ts';
import { runScan, type ScanRunnerDeps } from './scan-runner.ts';

/**
 * The worker role's scan loop on the lease worker (core/work/lease-worker.ts): claims scans
 * from the durable queue (priority, then age; expired leases first) up to
 * `worker.concurrency` at a time, one claim token each, and runs them (scan-runner.ts).
 * Its lease worker renews each scan's lease every `worker.heartbeatMs`, stops a scan that
 * was cancelled or taken over, and at `stop()` hands running scans back (lease released)
 * for another worker.
 */
export class ScanWorker {
  readonly #worker: LeaseWorker;

  constructor(deps: ScanRunnerDeps) {
    const { config } = deps;
    this.#worker = new LeaseWorker({
      name: 'scans',
      db: deps.db,
      queue: scanRepository.queue,
      logger: deps.logger,
      tokenTag: 's',
      pollIntervalMs: config.worker.pollIntervalMs,
      concurrency: () => config.worker.concurrency,
      leaseMs: () => config.worker.leaseMs,
      heartbeatMs: () => config.worker.heartbeatMs,
      claimBatch: 1,
      run: (lease) => runScan(deps, lease),
    });
  }

  get active(): number {
    return this.#worker.inflight;
  }

  /** Whether this process is running the scan now. */
  runs(scanId: string): boolean {
    return this.#worker.runs(scanId);
  }

  start(): void {
    this.#worker.start();
  }

  async stop(): Promise<void> {
    await this.#worker.stop();
  }

  wake(): void {
    this.#worker.wake();
  }

  /** A scan was cancelled through this process's API: stop it now rather than at the next cancel read. */
  cancelled(scanId: string): void {
    this.#worker.stopJob(scanId, 'cancelled');
  }

  /** Claims and starts what it can now; returns how many scans were started. */
  async claimOnce(): Promise<number> {
    return this.#worker.claimOnce();
  }
}
