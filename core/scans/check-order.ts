import type { DiscoveredService, ScannerCheck } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { servicesOf, type ScanCheckRow } from './scan-check-repository.ts';
import { ServiceList } from '../plugins/service-list.ts';

/** The loaded definition of a planned check, or undefined when its plugin is not loaded here. */
export function checkDefinition(plugins: PluginRegistry, row: Pick<ScanCheckRow, 'plugin' | 'check_id'>): ScannerCheck | undefined {
  return plugins.scanners().find((s) => s.plugin.name === row.plugin)?.plugin.checks.find((c) => c.id === row.check_id);
}

/**
 * Hands out a scan's pending checks to the engine's workers in an order that respects
 * `produces`/`consumes`: a check consuming services waits until every producer of the
 * scan has finished (whatever its outcome), then receives what they found. A check that
 * both consumes and produces never makes others wait, so no cycle can stall a scan.
 * Services of checks finished before a resume come from their rows.
 */
export class CheckOrder {
  readonly #pending: ScanCheckRow[];
  readonly #running = new Set<string>();
  readonly #producers = new Set<string>();
  readonly #consumers = new Set<string>();
  readonly #services = new ServiceList();
  #waiters: Array<() => void> = [];

  constructor(rows: readonly ScanCheckRow[], definitionOf: (row: ScanCheckRow) => ScannerCheck | undefined) {
    for (const row of rows) {
      const def = definitionOf(row);
      const consumes = def?.consumes?.includes('services') === true;
      if (consumes) this.#consumers.add(row.check_id);
      else if (def?.produces?.includes('services')) this.#producers.add(row.check_id);
      if (row.status !== 'pending') this.#services.addAll(servicesOf(row));
    }
    this.#pending = rows.filter((r) => r.status === 'pending');
  }

  get pendingCount(): number {
    return this.#pending.length;
  }

  /** The next check that may start, waiting for producers when only consumers are left; null when none remain or on abort. */
  async next(signal: AbortSignal): Promise<ScanCheckRow | null> {
    for (;;) {
      if (signal.aborted || !this.#pending.length) return null;
      const blocked = this.#producersOpen();
      const i = this.#pending.findIndex((c) => !blocked || !this.#consumers.has(c.check_id));
      if (i >= 0) {
        const [row] = this.#pending.splice(i, 1);
        this.#running.add(row!.check_id);
        return row!;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', wake);
          resolve();
        };
        this.#waiters.push(wake);
        signal.addEventListener('abort', wake, { once: true });
      });
    }
  }

  /** A handed-out check ended (recorded or not): keep its services, wake waiting workers. */
  finished(row: Pick<ScanCheckRow, 'check_id'>, services: readonly DiscoveredService[]): void {
    this.#running.delete(row.check_id);
    this.#services.addAll(services);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  /** What a check receives as `ctx.services`: undefined unless it consumes and the scan has producers. */
  servicesFor(row: Pick<ScanCheckRow, 'check_id'>): DiscoveredService[] | undefined {
    if (!this.#consumers.has(row.check_id) || !this.#producers.size) return undefined;
    return this.#services.toArray();
  }

  #producersOpen(): boolean {
    for (const id of this.#producers) {
      if (this.#running.has(id) || this.#pending.some((p) => p.check_id === id)) return true;
    }
    return false;
  }
}
