import type { ScanCheckRow } from './scan-check-repository.ts';

/** Where a running scan stands, from its checks: what is done and what is left. */
export interface ProgressView {
  progress: number;
  currentPhase: string;
  etaSeconds: number;
}

/**
 * progress = finished checks / all checks (0-99 while running; 100 is set when the scan
 * completes), where a running check that reports its own progress (`ctx.progress`,
 * `partial`: check id → 0..1) counts for that fraction. eta = estimated time of the
 * unfinished checks (each check's measured average, or this scan's own average so far,
 * or 30 s, less the part a running check reports done), divided by the checks that run
 * at once. The phase names the first unfinished check's scanner and category.
 */
export function progressOf(checks: readonly ScanCheckRow[], averages: ReadonlyMap<string, number>, concurrency: number, partial: ReadonlyMap<string, number> = new Map()): ProgressView {
  const total = checks.length;
  const finished = checks.filter((c) => c.status !== 'pending');
  const pending = checks.filter((c) => c.status === 'pending');
  const own = finished.filter((c) => c.duration_ms !== null);
  const ownAverage = own.length ? own.reduce((s, c) => s + Number(c.duration_ms), 0) / own.length : 30_000;
  const partOf = (c: ScanCheckRow) => Math.min(1, Math.max(0, partial.get(c.check_id) ?? 0));
  const leftMs = pending.reduce((s, c) => s + (averages.get(c.check_id) ?? ownAverage) * (1 - partOf(c)), 0);
  const done = finished.length + pending.reduce((s, c) => s + partOf(c), 0);
  const next = pending[0];
  return {
    progress: total ? Math.min(99, Math.floor((done / total) * 100)) : 99,
    currentPhase: next ? `${next.plugin}:${next.category}` : 'finalizing',
    etaSeconds: Math.ceil(leftMs / Math.max(1, Math.min(concurrency, pending.length || 1)) / 1000),
  };
}
