import type { Config } from '../../../config/config-schema.ts';
import type { Db } from '../../db/create-db.ts';
import type { EventPayloads } from '../../domain/event-payloads.ts';
import type { EventBus } from '../../events/event-bus.ts';
import { EventConsumer } from '../../events/event-consumer.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Logger } from '../../logger.ts';
import type { PlatformEvent } from '../../plugin-api/index.ts';
import { evaluateConditions } from '../language/conditions.ts';
import type { PlaybookSource } from '../runs/run-ports.ts';
import type { PlaybookRunService } from '../runs/run-service.ts';
import type { TriggeredRunCharge } from './trigger-budget.ts';
import { triggerRepository, type CauseRun } from './trigger-repository.ts';

export interface TriggerConsumerDeps {
  db: Db;
  bus: EventBus;
  outbox: Outbox<EventPayloads>;
  logger: Logger;
  config: Config;
  playbooks: PlaybookSource;
  runs: PlaybookRunService;
  /** Wakes the run worker when runs were queued. */
  onRuns(): void;
  /** Charges a run caused by another run to its tenant's request budget (trigger-budget.ts); absent: free. */
  charge?: TriggeredRunCharge;
}

/** Why a triggered run was not created (each raises a `playbook_loop` system.alert). */
type Refusal = { reason: 'depth'; depth: number } | { reason: 'fan_out'; caused: number; root: string } | { reason: 'rate_limited'; root: string };

/**
 * Turns outbox events into playbook runs. It reads the events table from its own durable
 * cursor (`playbook-triggers`), so events stored while no worker runs are picked up
 * later. Each event is matched against the enabled playbooks of its tenant whose trigger
 * names its kind and whose conditions hold over its data; a match queues a pending run
 * keyed by (playbook, event), so a batch handled twice (a crash before the cursor moved,
 * two processes after a lease lapsed) creates nothing twice. Runs whose own actions keep
 * triggering playbooks are bounded as a tree: in depth by `playbooks.maxTriggerDepth`, in
 * total by `playbooks.maxRunsPerRoot` (every run one root run caused, at any depth), and
 * each caused run is charged to the tenant's request budget. A refused run raises a
 * `playbook_loop` system.alert saying which bound held.
 */
export class TriggerConsumer {
  readonly #consumer: EventConsumer;

  constructor(private readonly deps: TriggerConsumerDeps) {
    this.#consumer = new EventConsumer({
      name: 'playbook-triggers',
      db: deps.db,
      bus: deps.bus,
      logger: deps.logger,
      pollIntervalMs: deps.config.events.pollIntervalMs,
      gapGraceMs: deps.config.events.gapGraceMs,
      leaseMs: deps.config.events.consumerLeaseMs,
      // Events stored before the engine first ran are history, not triggers.
      startAt: 'end',
      handle: async (events) => {
        if (await this.handle(events)) deps.onRuns();
      },
    });
  }

  start(): Promise<void> {
    return this.#consumer.start();
  }

  stop(): Promise<void> {
    return this.#consumer.stop();
  }

  drain(): Promise<number> {
    return this.#consumer.drain();
  }

  /** Queues the runs a batch of events triggers; returns how many were created. */
  async handle(events: PlatformEvent[]): Promise<number> {
    let created = 0;
    // One lookup per tenant and kind in a batch: a burst of one kind is one query, not one per event.
    const lookups = new Map<string, ReturnType<PlaybookSource['enabledForEvent']>>();
    for (const event of events) {
      if (!event.tenantId || event.kind === 'system.alert') continue;
      const key = `${event.tenantId}\u0000${event.kind}`;
      if (!lookups.has(key)) lookups.set(key, this.deps.playbooks.enabledForEvent(event.tenantId, event.kind));
      const candidates = await lookups.get(key)!;
      const matching = candidates.filter((p) => p.trigger.event === event.kind && evaluateConditions(p.trigger.conditions ?? {}, event.data));
      if (!matching.length) continue;
      const cause = await this.#cause(event);
      const depth = cause === null ? 0 : cause.depth + 1;
      for (const version of matching) {
        const refusal = await this.#refusal(event, cause, depth);
        if (refusal) {
          await this.#loopAlert(event, version.playbookId, refusal, depth);
          continue;
        }
        const triggerEvent = { id: event.id, kind: event.kind, data: event.data, ...(cause ? { root_run_id: cause.rootRunId } : {}) };
        const id = await this.deps.runs.create(version, { triggerEvent, targetAssetId: null, parameters: {}, depth, requestedBy: null, start: false });
        if (id) created += 1;
      }
    }
    return created;
  }

  async #cause(event: PlatformEvent): Promise<CauseRun | null> {
    const id = event.data.execution_id;
    if (typeof id !== 'string') return null;
    if (event.kind.startsWith('playbook.')) return triggerRepository.causeRun(this.deps.db, id);
    if (event.kind.startsWith('action.')) return triggerRepository.causeExecution(this.deps.db, id);
    return null;
  }

  /** Null when a run may be created for this event; else which bound refuses it. Only runs caused by runs are bounded and charged. */
  async #refusal(event: PlatformEvent, cause: CauseRun | null, depth: number): Promise<Refusal | null> {
    if (cause === null) return null;
    if (depth > this.deps.config.playbooks.maxTriggerDepth) return { reason: 'depth', depth };
    const caused = await triggerRepository.causedBy(this.deps.db, event.tenantId!, cause.rootRunId);
    if (caused >= this.deps.config.playbooks.maxRunsPerRoot) return { reason: 'fan_out', caused, root: cause.rootRunId };
    if (this.deps.charge && !(await this.deps.charge(event.tenantId!))) return { reason: 'rate_limited', root: cause.rootRunId };
    return null;
  }

  async #loopAlert(event: PlatformEvent, playbookId: string, refusal: Refusal, depth: number): Promise<void> {
    const { maxTriggerDepth, maxRunsPerRoot } = this.deps.config.playbooks;
    const head = `Playbook ${playbookId} was not started for event ${event.id} (${event.kind}): `;
    const message = refusal.reason === 'depth'
      ? `${head}the chain of runs that caused the event is ${refusal.depth} deep, beyond playbooks.maxTriggerDepth (${maxTriggerDepth}).`
      : refusal.reason === 'fan_out'
        ? `${head}run ${refusal.root} has already caused ${refusal.caused} runs, the most playbooks.maxRunsPerRoot (${maxRunsPerRoot}) allows one run to cause.`
        : `${head}the tenant's request budget is spent (runs caused by run ${refusal.root} are charged to it).`;
    this.deps.logger.warn({ playbook_id: playbookId, event_id: event.id, ...refusal }, 'playbook trigger loop cut');
    await this.deps.outbox.transaction(async (uow) => {
      await uow.emit({
        tenantId: event.tenantId,
        kind: 'system.alert',
        data: {
          alert_type: 'playbook_loop', message, playbook_id: playbookId, event_id: event.id, reason: refusal.reason, depth,
          ...('root' in refusal ? { root_run_id: refusal.root } : {}), ...('caused' in refusal ? { caused_runs: refusal.caused } : {}),
        },
      });
    });
  }
}
