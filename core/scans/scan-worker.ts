import { scanRepository } from './scan-repository.ts';
import { PollLoop } from '../work/poll-loop.ts';
import { claimToken } from '../work/instance-id.ts';
import { runScan, type RunningScan, type ScanRunnerDeps } from './scan-runner.ts';

/**
 * The worker role's scan loop: claims scans from the durable queue (priority, then
 * age; expired leases first) up to `worker.concurrency` at a time and runs them. Each
 * claim's lease token is unique, so a scan is never run twice at once, in this process
 * or another. `stop()` hands running scans back (lease released) for another worker.
 */
export class ScanWorker {
  readonly #d: ScanRunnerDeps;
  readonly #active = new Map<string, RunningScan>();
  readonly #loop: PollLoop;

  constructor(deps: ScanRunnerDeps) {
    this.#d = deps;
    this.#loop = new PollLoop({
      round: async () => void (await this.claimOnce()),
      intervalMs: deps.config.worker.pollIntervalMs,
      onError: (err) => deps.logger.error({ err: err.message }, 'scan claim failed; will retry'),
    });
  }

  get active(): number {
    return this.#active.size;
  }

  /** Whether this process is running the scan now. */
  runs(scanId: string): boolean {
    return this.#active.has(scanId);
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
    for (const scan of this.#active.values()) scan.stop('shutdown');
    await Promise.all([...this.#active.values()].map((s) => s.done));
  }

  wake(): void {
    this.#loop.wake();
  }

  /** A scan was cancelled through this process's API: stop it now rather than at the next heartbeat. */
  cancelled(scanId: string): void {
    this.#active.get(scanId)?.stop('cancelled');
  }

  /** Claims and starts what it can now; returns how many scans were started. */
  async claimOnce(): Promise<number> {
    const { db, config } = this.#d;
    let started = 0;
    while (this.#active.size < config.worker.concurrency) {
      const token = claimToken('s');
      const row = await scanRepository.claim(db, token, Date.now(), config.worker.leaseMs);
      if (!row) break;
      const run = runScan(this.#d, row, token);
      this.#active.set(row.id, run);
      started += 1;
      void run.done.finally(() => {
        this.#active.delete(row.id);
        this.wake();
      });
    }
    return started;
  }
}
