import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/create-db.ts';
import type { CommittedEvent, EventBus } from '../events/event-bus.ts';
import { readQueues } from './queue-depth-repository.ts';
import { readSiemLag } from './siem-lag-repository.ts';

export interface MetricsDeps {
  db: Db;
  bus: EventBus;
  /** Live SSE connections of this process. */
  sseConnections: () => number;
  now?: () => number;
}

/** Seconds: from a fast cached GET to a slow export or bulk import. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The process's Prometheus registry (its own, never prom-client's global one, so two apps in
 * one process, as in tests, do not share figures). Three kinds of figure:
 * - counted in this process as things happen: HTTP requests, rate-limit refusals, and the
 *   events this process commits (scans finished, findings created, checks run…);
 * - read from the database at scrape time, the same for every process: queue depths and
 *   ages, SIEM forwarding lag;
 * - about the process: event-loop lag, memory, database pool, SSE connections.
 * No label carries tenant data; the only identifiers are route templates, event kinds and
 * SIEM integration ids.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly rateLimitRefusals: Counter<'route'>;
  readonly #events: Counter<'kind'>;
  readonly #scans: Counter<'outcome'>;
  readonly #findings: Counter;
  readonly #checks: Counter<'outcome'>;
  readonly #checkDuration: Histogram<'check'>;
  readonly #deliveries: Counter<'outcome' | 'attempt'>;
  #unsubscribe: (() => void) | null = null;
  readonly #readDatabase: () => Promise<void>;

  constructor(private readonly deps: MetricsDeps) {
    const registers = [this.registry];
    const now = deps.now ?? Date.now;
    collectDefaultMetrics({ register: this.registry, prefix: 'rampart_' });
    this.httpDuration = new Histogram({ name: 'rampart_http_request_duration_seconds', help: 'HTTP request duration by route template, method and status', labelNames: ['method', 'route', 'status'], buckets: HTTP_BUCKETS, registers });
    this.rateLimitRefusals = new Counter({ name: 'rampart_rate_limit_refusals_total', help: 'Requests refused with 429 by the rate limiter, by route template', labelNames: ['route'], registers });
    this.#events = new Counter({ name: 'rampart_events_total', help: 'Events committed by this process, by kind', labelNames: ['kind'], registers });
    this.#scans = new Counter({ name: 'rampart_scans_finished_total', help: 'Scans finished by this process, by outcome', labelNames: ['outcome'], registers });
    this.#findings = new Counter({ name: 'rampart_findings_created_total', help: 'New findings recorded by this process (scans, imports, API)', registers });
    this.#checks = new Counter({ name: 'rampart_scan_checks_total', help: 'Scanner checks run by this process, by outcome', labelNames: ['outcome'], registers });
    this.#checkDuration = new Histogram({ name: 'rampart_scan_check_duration_seconds', help: 'Scanner check duration by check', labelNames: ['check'], buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300], registers });
    this.#deliveries = new Counter({ name: 'rampart_webhook_deliveries_total', help: 'Webhook delivery attempts made by this process, by outcome and attempt number', labelNames: ['outcome', 'attempt'], registers });

    const depth = new Gauge({ name: 'rampart_queue_depth', help: 'Rows waiting in a durable queue (due or scheduled later)', labelNames: ['queue'], registers });
    const age = new Gauge({ name: 'rampart_queue_oldest_age_seconds', help: 'How long the oldest due row of a queue has waited', labelNames: ['queue'], registers });
    const siemEvents = new Gauge({ name: 'rampart_siem_forwarding_lag_events', help: 'Events of the tenant not yet forwarded, per active SIEM integration', labelNames: ['integration'], registers });
    const siemSeconds = new Gauge({ name: 'rampart_siem_forwarding_lag_seconds', help: 'Age of the oldest event not yet forwarded, per active SIEM integration', labelNames: ['integration'], registers });
    this.#readDatabase = async () => {
      const t = now();
      const [queues, lag] = await Promise.all([readQueues(deps.db, t), readSiemLag(deps.db, t)]);
      // Reset and set in one synchronous block: a concurrent scrape never sees half of it.
      for (const g of [depth, age, siemEvents, siemSeconds]) g.reset();
      for (const q of queues) {
        depth.set({ queue: q.name }, q.depth);
        age.set({ queue: q.name }, q.oldestAgeSeconds);
      }
      for (const l of lag) {
        siemEvents.set({ integration: l.integration }, l.events);
        siemSeconds.set({ integration: l.integration }, l.seconds);
      }
    };

    new Gauge({ name: 'rampart_sse_connections', help: 'Open event-stream connections of this process', registers, collect() { this.set(deps.sseConnections()); } });
    new Gauge({
      name: 'rampart_db_pool_connections', help: 'Database pool connections by state (used, free, pending acquires)', labelNames: ['state'], registers,
      collect() {
        const p = (deps.db.client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
        if (!p) return;
        this.set({ state: 'used' }, p.numUsed());
        this.set({ state: 'free' }, p.numFree());
        this.set({ state: 'pending' }, p.numPendingAcquires());
      },
    });
  }

  /**
   * The exposition text. The database figures are read for this scrape (a read started by
   * an earlier, concurrent scrape could predate what this scraper just did).
   */
  async scrape(): Promise<string> {
    await this.#readDatabase();
    return this.registry.metrics();
  }

  /** Starts counting the events this process commits. */
  start(): void {
    this.#unsubscribe ??= this.deps.bus.onCommitted((events) => this.#count(events));
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  /** A webhook delivery attempt's outcome ('delivered', 'failed', 'retried'…) and its number. */
  deliveryAttempt(outcome: string, attempt: number): void {
    this.#deliveries.inc({ outcome, attempt: String(Math.min(attempt, 10)) });
  }

  #count(events: readonly CommittedEvent[]): void {
    for (const e of events) {
      this.#events.inc({ kind: e.kind });
      if (e.kind === 'finding.new') this.#findings.inc();
      else if (e.kind === 'scan.completed' || e.kind === 'scan.failed') this.#scanFinished(e);
    }
  }

  #scanFinished(e: CommittedEvent): void {
    const data = (e.data ?? {}) as { status?: string; checks_total?: number; checks_failed?: number };
    this.#scans.inc({ outcome: typeof data.status === 'string' ? data.status : e.kind.slice('scan.'.length) });
    if (typeof data.checks_total === 'number') {
      const failed = typeof data.checks_failed === 'number' ? data.checks_failed : 0;
      this.#checks.inc({ outcome: 'completed' }, Math.max(0, data.checks_total - failed));
      if (failed > 0) this.#checks.inc({ outcome: 'failed' }, failed);
    }
  }

  /** One scanner check's duration (the scan engine reports each check as it ends). */
  checkFinished(check: string, seconds: number): void {
    this.#checkDuration.observe({ check }, seconds);
  }
}
