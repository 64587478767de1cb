import type { ScanConfig } from '../../config/scan-config.ts';
import type { Db } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import { scanCheckRepository, type ScanCheckRow } from './scan-check-repository.ts';
import { scanFindingRepository } from './scan-finding-repository.ts';
import { scanRepository, type ScanRow } from './scan-repository.ts';
import type { CheckPool } from './check-pool.ts';
import type { CheckAttempt } from '../plugins/run-check.ts';
import { buildScope, denyList, targetOf, TargetDeniedError, type ScopeSpec } from './scan-scope.ts';
import type { ScanTarget } from '../plugin-api/index.ts';
import type { FindingService } from '../findings/finding-service.ts';
import { finishScan } from './scan-finish.ts';
import { progressOf } from './scan-progress.ts';
import { recordScanFindings } from './scan-findings.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { CheckOrder, checkDefinition } from './check-order.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { warningsFrom } from './check-outcomes.ts';
import { checkOptions } from './url-scope.ts';
import type { Lease, StopReason } from '../work/lease-worker.ts';

export type { StopReason } from '../work/lease-worker.ts';

export interface ScanRunnerDeps {
  db: Db;
  outbox: Outbox;
  plugins: PluginRegistry;
  config: ScanConfig;
  pool: CheckPool;
  findings: FindingService;
  logger: Logger;
  /** Told each check's id and duration in seconds once its outcome is committed (the metrics). */
  onCheck?: (checkId: string, seconds: number) => void;
}

/**
 * Runs one scan this worker claimed (core/scans/scan-worker.ts, on the lease worker, which
 * renews its lease, reads cancels, aborts it on a lost lease and releases it at
 * shutdown): builds the scope (deny list), runs its unfinished checks in the pool with
 * bounded concurrency, records each attempt with its findings in one transaction, and
 * finishes the scan (completed, or failed: timeout, all checks failed, target denied,
 * worker lost too often).
 */
export async function runScan(deps: ScanRunnerDeps, lease: Lease): Promise<void> {
  const row = await scanRepository.findAny(deps.db, lease.id);
  if (!row) return;
  await execute(deps, row, lease).catch((err: unknown) => {
    deps.logger.error({ scan_id: row.id, err: errorMessage(err) }, 'scan run failed');
  });
}

async function execute(deps: ScanRunnerDeps, row: ScanRow, lease: Lease): Promise<void> {
  const { db, config, logger } = deps;
  const { token, signal } = lease;
  const stop = (why: StopReason) => lease.stop(why);
  const reasonOf = () => lease.reason;
  if (row.claims > config.worker.maxClaims) {
    await finishScan(deps, row, token, 'failed', `worker lost: the scan's lease expired ${row.claims - 1} time(s) (worker crashed or stalled); not resumed again`);
    return;
  }
  const asset = await assetRepository.findById(db, row.tenant_id, row.asset_id);
  if (!asset) return; // deleted with its scans
  const options = fromJson<Record<string, unknown>>(row.options, {});
  const now = Date.now();
  const deadline = row.deadline_at ? Number(row.deadline_at) : Number(row.started_at ?? now) + Number(options.timeout ?? 3600) * 1000;
  const target = targetOf(asset);
  let scope: ScopeSpec;
  try {
    scope = await buildScope(target, denyList(config));
  } catch (err) {
    if (err instanceof TargetDeniedError) return void (await finishScan(deps, row, token, 'failed', `target_denied: ${err.message}`));
    throw err;
  }
  await scanRepository.updateRunning(db, row.id, token, { deadline_at: deadline, current_phase: 'starting', updated_at: now });
  const checks = await scanCheckRepository.forScan(db, row.id);
  const averages = await scanCheckRepository.averages(db, checks.map((c) => c.check_id));
  const deadlineTimer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
  try {
    await runChecks(deps, row, token, checks, averages, { target, scope, options, deadline, signal, reason: reasonOf });
  } catch (err) {
    // Unrecoverable (the database kept failing): the scan fails with the reason, never stays running.
    logger.error({ scan_id: row.id, err: errorMessage(err) }, 'scan failed on an internal error');
    stop('lost');
    await finishScan(deps, row, token, 'failed', `internal error: ${errorMessage(err)}`.slice(0, 500)).catch(() => undefined);
    return;
  } finally {
    clearTimeout(deadlineTimer);
  }
  const why = reasonOf();
  // Shutdown: the lease worker hands the scan back (one claim fewer); the next worker resumes
  // it at once with the unfinished checks.
  if (why === 'cancelled' || why === 'lost' || why === 'shutdown') return;
  if (why === 'timeout') return void (await finishScan(deps, row, token, 'failed', 'timeout'));
  const final = await scanCheckRepository.forScan(db, row.id);
  const ok = final.filter((c) => c.status === 'completed');
  if (final.length && !ok.length) {
    const first = final.find((c) => c.error)?.error ?? 'unknown error';
    return void (await finishScan(deps, row, token, 'failed', `all ${final.length} checks failed; first error: ${first}`.slice(0, 500)));
  }
  await finishScan(deps, row, token, 'completed', null);
}

interface RunContext {
  target: ScanTarget;
  scope: ScopeSpec;
  options: Record<string, unknown>;
  deadline: number;
  signal: AbortSignal;
  reason: () => StopReason | null;
}

async function runChecks(deps: ScanRunnerDeps, row: ScanRow, token: string, checks: ScanCheckRow[], averages: Map<string, number>, run: RunContext): Promise<void> {
  const state = checks.map((c) => ({ ...c }));
  const order = new CheckOrder(state, (c) => checkDefinition(deps.plugins, c));
  let recorded: Promise<unknown> = Promise.resolve();
  // Running checks that report their own progress (ctx.progress) move the scan's too.
  const partial = new Map<string, number>();
  let progressWritten = 0;
  const onProgress = (checkId: string, fraction: number) => {
    partial.set(checkId, fraction);
    if (Date.now() - progressWritten < Math.max(PARTIAL_PROGRESS_MIN_MS, deps.config.progressIntervalMs)) return;
    progressWritten = Date.now();
    recorded = recorded.then(() => recordProgress(deps, row, token, state, averages, partial)).catch((err: unknown) => {
      deps.logger.warn({ scan_id: row.id, err: errorMessage(err) }, 'scan progress not recorded');
    });
  };
  const worker = async () => {
    for (let next = await order.next(run.signal); next && !run.signal.aborted; next = await order.next(run.signal)) {
      const check = next;
      const planned = deps.plugins.scanners().find((s) => s.plugin.name === check.plugin);
      const timeoutMs = Math.max(1, Math.min(deps.config.pool.checkTimeoutMs, run.deadline - Date.now()));
      const services = order.servicesFor(check);
      let found: CheckAttempt['services'] = [];
      try {
        const attempt: CheckAttempt = planned
          ? await deps.pool.run(
              { moduleUrl: planned.moduleUrl, checkId: check.check_id, target: run.target, options: checkOptions(row.scan_type, run.target, { ...planned.options, ...run.options }), scope: run.scope, timeoutMs, ...(services ? { services } : {}) },
              { signal: run.signal, onProgress: (fraction) => onProgress(check.check_id, fraction) },
            )
          : { checkId: check.check_id, status: 'error', findings: [], logs: [], error: `scanner plugin "${check.plugin}" is not loaded in this worker`, durationMs: 0 };
        found = attempt.services ?? [];
        // A check stopped because this worker is handing the scan over (shutdown) or lost it
        // did not do its work: its findings are kept, but it stays pending so the next claim
        // runs it again rather than counting it as done.
        const why = run.reason();
        const rerun = attempt.status === 'cancelled' && (why === 'shutdown' || why === 'lost');
        const mine = state.find((c) => c.check_id === check.check_id)!;
        if (!rerun) {
          mine.status = attempt.status;
          mine.duration_ms = attempt.durationMs;
        }
        // One scan's attempts are recorded one at a time (they touch the same rows).
        const record = recorded.then(() => retryOnDeadlock(() => recordAttempt(deps, row, token, attempt, state, averages, rerun, partial)));
        recorded = record.catch(() => undefined);
        await record;
      } finally {
        order.finished(check, found);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.config.pool.checkConcurrency, order.pendingCount) }, worker));
}

/** Intermediate progress is written at most this often, even when scan.progress events are not throttled. */
const PARTIAL_PROGRESS_MIN_MS = 250;

/** A running check's own progress: the scan's progress, phase, eta and scan.progress, when the event interval allows. */
async function recordProgress(deps: ScanRunnerDeps, row: ScanRow, token: string, state: ScanCheckRow[], averages: Map<string, number>, partial: ReadonlyMap<string, number>): Promise<void> {
  const now = Date.now();
  await deps.outbox.transaction(async (uow) => {
    const { trx } = uow;
    if (now - (await scanRepository.progressEmittedAt(trx, row.id)) < deps.config.progressIntervalMs) return;
    const view = progressOf(state, averages, deps.config.pool.checkConcurrency, partial);
    if (!(await scanRepository.updateRunning(trx, row.id, token, { progress: view.progress, current_phase: view.currentPhase, eta_seconds: view.etaSeconds, progress_emitted_at: now }))) return;
    await uow.emit({ tenantId: row.tenant_id, kind: 'scan.progress', assetId: row.asset_id, data: { scan_id: row.id, progress: view.progress, phase: view.currentPhase } });
    await changeClock.markChanged(trx, row.tenant_id, 'scans', now);
  });
}

/**
 * One transaction per finished check: its row (outcome, error, duration, warnings), its
 * findings (deduplicated), the scan's done and failed counts and progress, maybe
 * scan.progress. With `rerun` only the findings are kept and the row stays pending.
 */
async function recordAttempt(deps: ScanRunnerDeps, row: ScanRow, token: string, attempt: CheckAttempt, state: ScanCheckRow[], averages: Map<string, number>, rerun = false, partial?: ReadonlyMap<string, number>): Promise<void> {
  const now = Date.now();
  const asset = { id: row.asset_id, name: row.asset_name ?? '' };
  await deps.outbox.transaction(async (uow) => {
    const { trx } = uow;
    if ((await scanRepository.statusOf(trx, row.id)) === null) return;
    const recorded = await recordScanFindings(uow, deps.findings, { tenantId: row.tenant_id, assetId: asset.id, assetName: asset.name, scanId: row.id, checkId: attempt.checkId, now }, attempt.findings);
    if (recorded.rejected.length) deps.logger.warn({ scan_id: row.id, check: attempt.checkId, rejected: recorded.rejected }, 'check reported findings with invalid CVSS vectors');
    const error = attempt.error ?? (recorded.rejected.length ? `invalid findings dropped: ${recorded.rejected.join('; ')}` : null);
    if (!rerun) {
      const warnings = warningsFrom(attempt.logs);
      await scanCheckRepository.record(trx, row.id, attempt.checkId, { status: attempt.status, error, durationMs: attempt.durationMs, findingCount: attempt.findings.length, services: attempt.services, warnings, now });
      if (attempt.status === 'completed') await scanCheckRepository.measure(trx, attempt.checkId, attempt.durationMs, now);
      if (attempt.status !== 'completed' && attempt.status !== 'cancelled') deps.logger.warn({ scan_id: row.id, check: attempt.checkId, status: attempt.status, err: error, duration_ms: attempt.durationMs }, 'scan check failed');
    }
    const { summary, total } = await scanFindingRepository.summary(trx, row.id);
    const counts = { checks_done: await scanCheckRepository.finishedCount(trx, row.id), checks_failed: await scanCheckRepository.failedCount(trx, row.id) };
    await scanRepository.update(trx, row.id, { finding_summary: toJson(summary), finding_count: total, ...counts, updated_at: now });
    const view = progressOf(state, averages, deps.config.pool.checkConcurrency, partial);
    const emitNow = now - (await scanRepository.progressEmittedAt(trx, row.id)) >= deps.config.progressIntervalMs;
    const changes: Record<string, unknown> = { progress: view.progress, current_phase: view.currentPhase, eta_seconds: view.etaSeconds };
    if (emitNow) changes.progress_emitted_at = now;
    if (await scanRepository.updateRunning(trx, row.id, token, changes)) {
      if (emitNow) await uow.emit({ tenantId: row.tenant_id, kind: 'scan.progress', assetId: asset.id, data: { scan_id: row.id, progress: view.progress, phase: view.currentPhase } });
    }
    await changeClock.markChanged(trx, row.tenant_id, 'scans', now);
  });
  if (!rerun && attempt.status !== 'cancelled') deps.onCheck?.(attempt.checkId, attempt.durationMs / 1000);
}
