import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { FindingReport } from '../plugin-api/index.ts';
import type { CheckAttempt } from '../plugins/run-check.ts';
import type { CheckTask } from './check-worker.ts';
import { serveTypeScriptToThreads } from '../runtime/typescript-support.ts';

export type CheckJob = Omit<CheckTask, 'port'>;

export interface CheckRunOptions {
  /** Cancels the check: the worker is asked first, the thread is terminated after `graceMs`. */
  signal?: AbortSignal;
  onFinding?: (finding: FindingReport) => void;
  /** The check's own progress (0..1), as it reports it with `ctx.progress`. */
  onProgress?: (fraction: number) => void;
  graceMs?: number;
}

const WORKER = new URL('./check-worker-entry.mjs', import.meta.url).href;

/**
 * The piscina pool scanner checks run in. Work crosses as plain data (module URL,
 * check id, target, options, scope); findings stream back over a MessagePort so a
 * cancelled or timed-out scan keeps what was reported before it stopped. A check that
 * ignores the cancel request loses its thread after `graceMs`.
 */
export class CheckPool {
  readonly #pool: Piscina;

  constructor(options: { maxThreads: number }) {
    // Threads transpile TypeScript (the sources, a TypeScript plugin) through the main thread,
    // and start without the process's flags: an inherited `--import tsx` would start an
    // esbuild child per thread that nobody reaps once the thread is retired.
    serveTypeScriptToThreads();
    this.#pool = new Piscina({ filename: WORKER, maxThreads: options.maxThreads, minThreads: 0, idleTimeout: 30_000, concurrentTasksPerWorker: 1, execArgv: [] });
  }

  get threads(): number {
    return this.#pool.threads.length;
  }

  async run(job: CheckJob, opts: CheckRunOptions = {}): Promise<CheckAttempt> {
    const { port1, port2 } = new MessageChannel();
    const streamed: FindingReport[] = [];
    port1.on('message', (m: { type?: string; finding?: FindingReport; fraction?: number }) => {
      if (m?.type === 'finding' && m.finding) {
        streamed.push(m.finding);
        opts.onFinding?.(m.finding);
      } else if (m?.type === 'progress' && typeof m.fraction === 'number') opts.onProgress?.(m.fraction);
    });
    const hard = new AbortController();
    let timer: NodeJS.Timeout | null = null;
    const onAbort = () => {
      port1.postMessage({ type: 'cancel' });
      timer = setTimeout(() => hard.abort(), opts.graceMs ?? 1000);
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const started = Date.now();
    try {
      const task: CheckTask = { ...job, port: port2 };
      return (await this.#pool.run(task, { transferList: [port2] as never, signal: hard.signal })) as CheckAttempt;
    } catch (err) {
      const cancelled = hard.signal.aborted || opts.signal?.aborted === true;
      return {
        checkId: job.checkId,
        status: cancelled ? 'cancelled' : 'error',
        findings: streamed,
        logs: [],
        error: cancelled ? 'cancelled' : `worker failed: ${(err as Error)?.message ?? String(err)}`,
        durationMs: Date.now() - started,
      };
    } finally {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      port1.close();
    }
  }

  async destroy(): Promise<void> {
    await this.#pool.destroy();
  }
}
