import type { PlaybooksConfig } from '../../../config/playbooks-config.ts';
import type { Db } from '../../db/create-db.ts';
import type { EventPayloads } from '../../domain/event-payloads.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Logger } from '../../logger.ts';
import { errorMessage } from '../../work/coerce-error.ts';
import { claimToken } from '../../work/instance-id.ts';
import { LeaseWorker } from '../../work/lease-worker.ts';
import type { PlaybookDefinition } from '../playbook-types.ts';
import { RunAdvancer } from './run-advance.ts';
import { finishRun, type RunEnding } from './run-finish.ts';
import { runRepository } from './run-repository.ts';
import type { RunRow } from './run-rows.ts';
import type { ActionPorts } from './run-ports.ts';

/** A run waiting on its steps' actions is looked at again after this long even without a wake-up (a safety net). */
const RECHECK_MS = 60_000;

export interface PlaybookRunWorkerDeps {
  db: Db;
  outbox: Outbox<EventPayloads>;
  logger: Logger;
  config: PlaybooksConfig;
  ports: ActionPorts;
}

/**
 * Advances playbook runs on the lease worker (core/work/lease-worker.ts): claims due runs
 * (pending ones, and live ones woken by a step's action ending, or reaching their deadline
 * or recheck time), moves each as far as it can go (RunAdvancer), and lets it go with its
 * next due time, or ends it. A run is never held while its steps' actions run, so a worker
 * that dies loses at most the advance in progress: the lease lapses and another worker
 * redoes it from the rows. `now` is the engine's clock (tests move it to reach a deadline
 * without waiting).
 */
export class PlaybookRunWorker {
  readonly #worker: LeaseWorker;
  readonly #advancer: RunAdvancer;
  now: () => number = Date.now;

  constructor(private readonly deps: PlaybookRunWorkerDeps) {
    this.#advancer = new RunAdvancer(deps.db, deps.ports);
    this.#worker = new LeaseWorker({
      name: 'playbook-runs',
      db: deps.db,
      queue: runRepository.queue,
      logger: deps.logger,
      tokenTag: 'p',
      pollIntervalMs: deps.config.pollIntervalMs,
      concurrency: () => deps.config.concurrency,
      leaseMs: () => deps.config.leaseMs,
      clock: () => this.now(),
      run: (lease) => this.#runOne(lease.id, lease.token),
    });
  }

  start(): void {
    this.#worker.start();
  }

  wake(): void {
    this.#worker.wake();
  }

  /** Stops claiming and waits for the advances in progress (an advance is short; it ignores the stop signal). */
  async stop(): Promise<void> {
    await this.#worker.stop();
  }

  /** Advances every due run once, in this process (tests and benchmarks). Returns how many were claimed. */
  async runDue(): Promise<number> {
    const token = claimToken('p');
    const ids = await runRepository.claim(this.deps.db, { token, now: this.now(), leaseMs: this.deps.config.leaseMs, limit: 50 });
    await Promise.all(ids.map((id) => this.#runOne(id, token).catch((err) => this.deps.logger.error({ err: { message: errorMessage(err) }, playbook_execution_id: id }, 'playbook run advance failed; retried when its lease lapses'))));
    return ids.length;
  }

  async #runOne(id: string, token: string): Promise<void> {
    const { db } = this.deps;
    let run = (await runRepository.getAny(db, id))!;
    let now = this.now();
    if (run.status === 'pending') {
      const started = await this.#start(run, token, now);
      if (!started) return;
      run = started;
    }
    if (run.cancel_requested) return void (await this.#end(run, token, { status: 'cancelled', error: { code: 'cancelled', message: 'The run was cancelled.' } }));
    if (run.deadline_at !== null && Number(run.deadline_at) <= now) {
      const minutes = (JSON.parse(run.snapshot) as PlaybookDefinition).timeout_minutes;
      return void (await this.#end(run, token, { status: 'failed', error: { code: 'timeout', message: `The run did not finish within its timeout of ${minutes} minute(s); its running steps were cancelled.` } }));
    }
    const next = await this.#advancer.advance(run, now);
    now = this.now();
    if ('end' in next) return void (await this.#end(run, token, next.end));
    const dueAt = Math.min(Number(run.deadline_at ?? Infinity), now + RECHECK_MS);
    await runRepository.release(db, id, token, run.wakes, { status: next.wait.paused ? 'paused' : 'running', current_step: next.wait.currentStep, steps_completed: next.wait.stepsCompleted }, dueAt, now);
  }

  /** pending -> running with playbook.started, in one transaction; the deadline starts now. */
  async #start(run: RunRow, token: string, now: number): Promise<RunRow | null> {
    const minutes = (JSON.parse(run.snapshot) as PlaybookDefinition).timeout_minutes;
    const changes = { status: 'running' as const, started_at: now, deadline_at: now + minutes * 60_000, updated_at: now };
    const ok = await this.deps.outbox.transaction(async (uow) => {
      if (!(await runRepository.update(uow.trx, run.id, token, changes))) return false;
      await uow.emit({ tenantId: run.tenant_id, kind: 'playbook.started', data: startedData(run) });
      return true;
    });
    return ok ? { ...run, ...changes } : null;
  }

  async #end(run: RunRow, token: string, ending: RunEnding): Promise<void> {
    const live = await finishRun(this.deps.outbox, run, { token }, ending, this.now());
    if (live) await cancelExecutions(this.deps.ports, run.tenant_id, live);
  }
}

export function startedData(run: RunRow): EventPayloads['playbook.started'] {
  return { playbook_id: run.playbook_id, execution_id: run.id, playbook_name: run.playbook_name, status: 'running', trigger_event_id: run.trigger_event_id === null ? null : String(run.trigger_event_id), error_code: null };
}

/** Cancels the action executions of steps a run left behind; one that already ended is fine. */
export async function cancelExecutions(ports: ActionPorts, tenantId: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    try {
      await ports.control.cancel(tenantId, id);
    } catch {
      /* ended meanwhile, or never triggered */
    }
  }
}
