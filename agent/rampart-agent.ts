import type { Sandbox } from '../core/plugin-api/index.ts';
import type { AgentLogFn } from './agent-log.ts';
import type { AgentOptions } from './agent-options.ts';
import { runSession } from './job-session.ts';
import { RejectedTokenError, type RampartClient } from './rampart-client.ts';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * The agent: `concurrency` slots, each long-polling for a job and running it. It only
 * connects out. While Rampart is unreachable it retries with capped exponential backoff
 * and jitter. `stop()` (SIGTERM) stops claiming at once, lets running jobs finish for
 * the drain time, then stops them and reports them `agent_stopped`.
 */
export class RampartAgent {
  readonly #claims = new AbortController();
  readonly #jobs = new AbortController();
  #exitCode = 0;

  constructor(
    private readonly o: AgentOptions,
    private readonly client: RampartClient,
    private readonly log: AgentLogFn,
    /** Makes the isolate a script job runs in. */
    private readonly sandbox: () => Sandbox,
  ) {}

  async run(): Promise<number> {
    this.log('info', 'agent started', { url: this.o.url, concurrency: this.o.concurrency, scripts_dir: this.o.scriptsDir });
    await Promise.all(Array.from({ length: this.o.concurrency }, (_, slot) => this.#slot(slot)));
    await this.client.close();
    this.log('info', 'agent stopped', { exit_code: this.#exitCode });
    return this.#exitCode;
  }

  stop(): void {
    if (this.#claims.signal.aborted) {
      this.#jobs.abort(); // a second signal: stop running jobs now
      return;
    }
    this.log('info', 'stopping: no new jobs; running jobs get the drain time', { drain_ms: this.o.drainMs });
    this.#claims.abort();
    const timer = setTimeout(() => this.#jobs.abort(), this.o.drainMs);
    timer.unref();
  }

  async #slot(slot: number): Promise<void> {
    let failures = 0;
    const limits = { scriptsDir: this.o.scriptsDir, maxOutputBytes: this.o.maxOutputBytes, maxLogLines: 1000, scriptMemoryMb: this.o.scriptMemoryMb, sandbox: this.sandbox };
    while (!this.#claims.signal.aborted) {
      try {
        const job = await this.client.claim(this.o.waitSeconds, this.#claims.signal);
        if (failures) this.log('info', 'connected to Rampart again', { slot });
        failures = 0;
        if (job) await runSession(job, { client: this.client, log: this.log, limits, stop: this.#jobs.signal, sleep: (ms) => sleep(ms, this.#jobs.signal) });
      } catch (err) {
        if (this.#claims.signal.aborted) break;
        if (err instanceof RejectedTokenError) {
          this.log('error', 'the agent token was refused (unknown or revoked): stopping', { slot });
          this.#exitCode = 3;
          this.stop();
          break;
        }
        failures += 1;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 6)) * (0.5 + Math.random() / 2);
        if (failures === 1 || failures % 10 === 0) this.log('warn', 'Rampart is unreachable; retrying', { slot, failures, retry_in_ms: Math.round(delay), reason: (err as Error).message });
        await sleep(delay, this.#claims.signal);
      }
    }
  }
}
