import type { lookup as dnsLookup } from 'node:dns';
import type { CheckContext, DiscoveredService, FindingReport, LogLevel, ScanTarget, ScannerCheck } from '../plugin-api/index.ts';
import { scopeGuard } from './scope-guard.ts';
import { scopedHttp } from './scoped-http.ts';
import { ServiceList } from './service-list.ts';
import { targetScope } from './target-scope.ts';

/** One log line written by a check. */
export interface CheckLog {
  timestamp: string;
  level: LogLevel;
  message: string;
}

/**
 * The outcome of running one check, recorded as data (sslyze's rule): a check that
 * throws or runs out of time is an attempt with an error, never a failed scan.
 */
export interface CheckAttempt {
  checkId: string;
  status: 'completed' | 'error' | 'timeout' | 'cancelled';
  findings: FindingReport[];
  logs: CheckLog[];
  /** Services the check recorded with `ctx.addService` (also when it then failed). */
  services?: DiscoveredService[];
  error?: string;
  durationMs: number;
}

export interface RunCheckOptions {
  options?: Record<string, unknown>;
  /** Default 30 s. */
  timeoutMs?: number;
  /** Cancels the check (scan cancelled). */
  signal?: AbortSignal;
  /** Overrides the default scope (the target's host, or its CIDR for network assets). */
  inScope?: (hostOrIp: string) => boolean;
  /** CIDRs never to touch: applied by the default scope, and by `ctx.http` and `ctx.resolve` to every address a name resolves to. */
  deny?: readonly string[];
  /** Replaces DNS resolution for `ctx.http` and `ctx.resolve` (`dns.lookup`'s shape): a test's resolver. */
  resolve?: typeof dnsLookup;
  /** Called as each finding is reported, besides collecting it. */
  onFinding?: (finding: FindingReport) => void;
  /** Services found by earlier checks of the scan (`ctx.services`); omit when nothing produces them. */
  services?: readonly DiscoveredService[];
  /** Called with the check's progress (0..1) as `ctx.progress` reports it, at most once per whole percent. */
  onProgress?: (fraction: number) => void;
}

/**
 * Runs one check against one target and returns what happened. This is the code the
 * scan engine's workers run, and the author kit for plugin writers: a third party can
 * test a scanner with `runCheck(check, target, {options})` and no server at all.
 */
export async function runCheck(check: ScannerCheck, target: ScanTarget, opts: RunCheckOptions = {}): Promise<CheckAttempt> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const findings: FindingReport[] = [];
  const logs: CheckLog[] = [];
  const services = new ServiceList();
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
  const started = Date.now();
  let done = false;
  let reported = -1;
  const inScope = opts.inScope ?? targetScope(target, opts.deny);
  const guard = scopeGuard({ inScope, deny: opts.deny ?? [], resolve: opts.resolve });
  const log = (level: LogLevel, message: string): void => {
    logs.push({ timestamp: new Date().toISOString(), level, message: String(message).slice(0, 4000) });
  };
  const http = scopedHttp({ guard, signal: controller.signal, timeoutMs, log });
  const ctx: CheckContext = {
    options: Object.freeze({ ...(opts.options ?? {}) }),
    signal: controller.signal,
    timeoutMs,
    report(finding) {
      if (done) return; // late reports after a timeout are not evidence of this attempt
      findings.push(finding);
      opts.onFinding?.(finding);
    },
    log,
    inScope,
    http: { request: (req) => http.request(req) },
    resolve: (host, o) => guard.resolve(host, { outsideScope: o?.outsideScope === true, signal: controller.signal }),
    addService(service) {
      if (done) return;
      if (!services.add(service)) ctx.log('WARN', `service dropped (invalid or over the limit): ${JSON.stringify(service).slice(0, 200)}`);
    },
    ...(opts.services ? { services: Object.freeze(opts.services.map((s) => Object.freeze({ ...s }))) } : {}),
    progress(doneUnits, total) {
      if (done || !(total > 0) || !Number.isFinite(doneUnits)) return;
      const percent = Math.floor(Math.min(1, Math.max(0, doneUnits / total)) * 100);
      if (percent === reported) return;
      reported = percent;
      opts.onProgress?.(percent / 100);
    },
  };
  // A check that ignores its signal still loses the race: the attempt ends at the deadline.
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('cancelled');
    await Promise.race([check.run(ctx, target), aborted]);
    return { checkId: check.id, status: 'completed', findings, logs, services: services.toArray(), durationMs: Date.now() - started };
  } catch (err) {
    const cancelled = opts.signal?.aborted === true;
    const timedOut = !cancelled && controller.signal.aborted;
    const reason = cancelled ? 'cancelled' : timedOut ? `timed out after ${timeoutMs} ms` : (err as Error)?.message ?? String(err);
    return { checkId: check.id, status: cancelled ? 'cancelled' : timedOut ? 'timeout' : 'error', findings, logs, services: services.toArray(), error: reason, durationMs: Date.now() - started };
  } finally {
    done = true;
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    controller.abort(new Error('finished'));
    await http.close();
  }
}
