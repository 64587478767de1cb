import { AsyncLocalStorage } from 'node:async_hooks';

/** Where one loop stands, on its own clock (epoch ms). */
export interface LoopHealth {
  running: boolean;
  /** When the round now running started, or null between rounds. */
  roundStartedAt: number | null;
  /** The last sign of life: a round starting or ending. */
  lastTickAt: number | null;
  /**
   * How far behind the loop is: the age of the round now running, or how late the next
   * round is past its planned start (0 when on time).
   */
  lagMs: number;
}

export interface Watched {
  health(): LoopHealth;
}

/** One background service's loops, summed up: the worst of them counts. */
export interface ServiceLoops {
  service: string;
  loops: number;
  /** The oldest last sign of life among them. */
  lastTickAt: number | null;
  lagMs: number;
  ok: boolean;
}

/** The loops started by other loops' requests rather than by a background service's start (e.g. a SIEM consumer created through the API). */
export const UNATTRIBUTED = 'other';

/**
 * The running poll loops of one process (core/work/poll-loop.ts), grouped by the
 * background service that started them: the readiness check asks it whether any loop
 * is stuck or late. A loop finds its monitor and service through the async context
 * BackgroundRegistry.start() runs each service's start() in, so the feature code that
 * creates loops needs no change.
 */
export class LoopMonitor {
  readonly #loops = new Map<Watched, string>();

  track(loop: Watched, service: string): () => void {
    this.#loops.set(loop, service);
    return () => void this.#loops.delete(loop);
  }

  /** Per service, whether every loop runs and none lags more than `maxLagMs`. */
  report(maxLagMs: number): ServiceLoops[] {
    const byService = new Map<string, ServiceLoops>();
    for (const [loop, service] of [...this.#loops, ...(this === unattributed ? [] : unattributed.#loops)]) {
      const h = loop.health();
      const s = byService.get(service) ?? { service, loops: 0, lastTickAt: null, lagMs: 0, ok: true };
      s.loops += 1;
      s.lagMs = Math.max(s.lagMs, h.lagMs);
      if (h.lastTickAt !== null && (s.lastTickAt === null || h.lastTickAt < s.lastTickAt)) s.lastTickAt = h.lastTickAt;
      s.ok &&= h.running && h.lagMs <= maxLagMs;
      byService.set(service, s);
    }
    return [...byService.values()].sort((a, b) => a.service.localeCompare(b.service));
  }
}

const unattributed = new LoopMonitor();
const scope = new AsyncLocalStorage<{ monitor: LoopMonitor; service: string }>();

/** Runs `start` so that the loops it starts (now or from its callbacks later) are `service`'s in `monitor`. */
export function startWatched<T>(monitor: LoopMonitor, service: string, start: () => T): T {
  return scope.run({ monitor, service }, start);
}

/** Called by a loop as it starts: registers it with the service starting it; returns the way out. */
export function watchLoop(loop: Watched): () => void {
  const current = scope.getStore();
  return current ? current.monitor.track(loop, current.service) : unattributed.track(loop, UNATTRIBUTED);
}
