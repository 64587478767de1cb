import type { ExecutorsConfig } from '../../config/executors-config.ts';
import type { ActionVersion } from '../actions/action-version.ts';
import type { Db } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { ExecutorAsset } from '../plugin-api/index.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { LeaseWorker, type Lease } from '../work/lease-worker.ts';
import { shareSlots } from './tenant-share.ts';
import { tenantRepository } from '../auth/tenant-repository.ts';
import { executionRepository } from './execution-repository.ts';
import type { ExecutionRow } from './execution-rows.ts';
import { finishExecution } from './execution-finish.ts';
import { runAttempt, type AttemptDeps, type AttemptOutcome } from './run-attempt.ts';
import { RunLog } from './run-log.ts';
import { SecretScrubber } from './secret-scrubber.ts';
import type { FinishHooks } from './finish-hooks.ts';

export interface RunWorkerDeps extends AttemptDeps {
  db: Db;
  outbox: Outbox<EventPayloads>;
  logger: Logger;
  config: ExecutorsConfig;
  asset(tenantId: string, id: string): Promise<ExecutorAsset | null>;
  hooks: FinishHooks;
  clock?: () => number;
}

const MAX_LOG_LINES = 2000;
const MAX_BACKOFF_MS = 3600_000;

/**
 * Runs queued action executions on the lease worker (core/work/lease-worker.ts): claims due
 * runs up to `executors.concurrency` per process (`perActionConcurrency` per action across
 * processes, as a lease limit; each tenant at most its fair share of the slots, by tier:
 * tenant-share.ts), renews each run's lease and flushes its log lines on the heartbeat, and
 * stops a run whose cancel flag is set within a cancel read. Each attempt ends with its
 * final state or a delayed retry. A run whose worker died (its lease lapsed while running)
 * is failed `worker_lost` by the lost-lease sweep, never run again: it may have had effects,
 * and running it twice is worse than asking a human.
 */
export class RunWorker {
  readonly #worker: LeaseWorker;
  readonly #logs = new Map<string, RunLog>();
  #endShutdown: () => void = () => {};
  #shutdown: Promise<void> = new Promise<void>((resolve) => (this.#endShutdown = resolve));

  constructor(private readonly deps: RunWorkerDeps) {
    const { config, db } = deps;
    this.#worker = new LeaseWorker({
      name: 'action-runs',
      db,
      queue: executionRepository.queue(config.perActionConcurrency),
      logger: deps.logger,
      tokenTag: 'r',
      pollIntervalMs: config.pollIntervalMs,
      concurrency: () => config.concurrency,
      leaseMs: () => config.leaseMs,
      ...(deps.clock ? { clock: deps.clock } : {}),
      claim: (d, o) => executionRepository.claim(d, { ...o, perActionLimit: config.perActionConcurrency }),
      share: {
        keyOf: async (id) => (await executionRepository.getAny(db, id))?.tenant_id ?? null,
        slots: async (tenantId) => shareSlots(config.concurrency, (await tenantRepository.findById(db, tenantId))?.tier ?? null, config.tenantShares),
      },
      run: (lease) => this.#runOne(lease),
      onBeat: async (lease) => {
        const log = this.#logs.get(lease.id);
        if (log) await executionRepository.appendLogs(db, log.drain());
      },
      sweep: { everyMs: () => config.leaseMs / 2, run: (now) => this.#failLost(now) },
    });
  }

  #now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  start(): void {
    if (!this.#worker.running) this.#shutdown = new Promise<void>((resolve) => (this.#endShutdown = resolve));
    this.#worker.start();
  }

  wake(): void {
    this.#worker.wake();
  }

  /** Stops claiming; aborts running attempts (each ends as a failed attempt, `interrupted`) and waits for them. */
  async stop(): Promise<void> {
    this.#endShutdown();
    await this.#worker.stop();
  }

  /** Runs in flight in this process (for tests and health). */
  get inflight(): number {
    return this.#worker.inflight;
  }

  async #failLost(now: number): Promise<void> {
    const lost = await executionRepository.lost(this.deps.db, now, 50);
    for (const row of lost) {
      const ending = { status: 'failed' as const, output: null, error: { code: 'worker_lost', message: 'The worker running this action stopped responding; the run is not repeated because it may already have had effects.' } };
      const line = { executionId: row.id, tenantId: row.tenant_id, attempt: row.attempt, level: 'ERROR', message: ending.error.message, at: now };
      await finishExecution(this.deps.outbox, row, { from: { status: 'running' }, lost: true }, ending, [line], now, this.deps.hooks);
    }
  }

  async #runOne(lease: Lease): Promise<void> {
    const row = (await executionRepository.getAny(this.deps.db, lease.id))!;
    const action = fromJson<ActionVersion>(row.action_snapshot, null as unknown as ActionVersion);
    const scrubber = new SecretScrubber();
    const log = new RunLog({ executionId: row.id, tenantId: row.tenant_id, attempt: row.attempt }, scrubber, MAX_LOG_LINES, () => this.#now());
    this.#logs.set(row.id, log);
    try {
      const outcome = await this.#attempt(row, action, log, scrubber, lease.signal);
      if (lease.reason !== 'lost') await this.#settle(row, lease.token, action, outcome, log, scrubber);
      // The outcome is recorded (a cancel reads `cancelled` at once), but the slot stays
      // taken until the executor itself has stopped (issue 25: no work outside the slots).
      // At shutdown the process is going away: it stops waiting for executors that ignore their signal.
      await Promise.race([outcome.settled, this.#shutdown]);
    } finally {
      this.#logs.delete(row.id);
    }
  }

  async #attempt(row: ExecutionRow, action: ActionVersion, log: RunLog, scrubber: SecretScrubber, signal: AbortSignal): Promise<AttemptOutcome> {
    const refs = fromJson<Record<string, string>>(row.secret_refs, {});
    let secrets: Record<string, string>;
    let asset: ExecutorAsset | null = null;
    try {
      secrets = await this.deps.credentials.resolve(row.tenant_id, [...new Set(Object.values(refs))], { sandbox: Boolean(row.sandbox) });
      if (row.target) asset = await this.deps.asset(row.tenant_id, row.target);
    } catch (err) {
      return { status: 'failed' as const, output: {}, error: { code: (err as { code?: string }).code ?? 'setup_failed', message: errorMessage(err) }, aborted: null };
    }
    const params: Record<string, unknown> = { ...fromJson<Record<string, unknown>>(row.parameters, {}) };
    for (const [param, credential] of Object.entries(refs)) params[param] = secrets[credential];
    scrubber.add(Object.values(secrets));
    log.write('INFO', `attempt ${row.attempt} of ${row.max_attempts} started${row.sandbox ? ' (sandbox)' : ''}`);
    return runAttempt(
      { executionId: row.id, tenantId: row.tenant_id, attempt: row.attempt, action, params, secretParams: Object.keys(refs), asset, sandbox: Boolean(row.sandbox), dryRun: false, signal, log, scrubber },
      this.deps,
    );
  }

  async #settle(row: ExecutionRow, token: string, action: ActionVersion, outcome: AttemptOutcome, log: RunLog, scrubber: SecretScrubber): Promise<void> {
    const now = this.#now();
    const error = outcome.error ? scrubber.value(outcome.error) : null;
    const output = scrubber.value(outcome.output ?? {});
    if (outcome.aborted === 'cancelled') {
      log.write('WARN', 'cancelled while running');
      await finishExecution(this.deps.outbox, row, { token }, { status: 'cancelled', output, error: { code: 'cancelled', message: 'The run was cancelled.' } }, log.drain(true), now, this.deps.hooks);
      return;
    }
    const failedAttempt = outcome.status === 'failed';
    const code = outcome.aborted === 'shutdown' ? 'interrupted' : error?.code ?? 'failed';
    if (failedAttempt && row.attempt < row.max_attempts) {
      const delay = Math.min(MAX_BACKOFF_MS, action.retry.backoffSeconds * 1000 * 2 ** (row.attempt - 1));
      log.write('WARN', `attempt ${row.attempt} failed (${code}: ${error?.message ?? ''}); retrying in ${Math.round(delay / 1000)} s`);
      const lines = log.drain(true);
      await retryOnDeadlock(() =>
        this.deps.db.transaction(async (trx) => {
          const retried = await executionRepository.settle(trx, row.id, token, { status: 'pending', due_at: now + delay, error: toJson({ code, message: error?.message ?? '' }), updated_at: now });
          if (retried) await executionRepository.appendLogs(trx, lines);
        }),
      );
      return;
    }
    const status = outcome.status;
    log.write(status === 'completed' ? 'INFO' : 'ERROR', status === 'completed' ? `attempt ${row.attempt} completed` : `attempt ${row.attempt} ${status} (${code}: ${error?.message ?? ''})`);
    await finishExecution(this.deps.outbox, row, { token }, { status, output, error: status === 'completed' ? null : { code, message: error?.message ?? '' } }, log.drain(true), now, this.deps.hooks);
  }
}
