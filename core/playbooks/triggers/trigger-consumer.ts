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
import { triggerRepository } from './trigger-repository.ts';

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
}

/**
 * Turns outbox events into playbook runs. It reads the events table from its own durable
 * cursor (`playbook-triggers`), so events stored while no worker runs are picked up
 * later. Each event is matched against the enabled playbooks of its tenant whose trigger
 * names its kind and whose conditions hold over its data; a match queues a pending run
 * keyed by (playbook, event), so a batch handled twice (a crash before the cursor moved,
 * two processes after a lease lapsed) creates nothing twice. Runs whose own actions keep
 * triggering playbooks are cut at `playbooks.maxTriggerDepth` with a `system.alert`.
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
      const cause = await this.#causeDepth(event);
      const depth = cause === null ? 0 : cause + 1;
      for (const version of matching) {
        if (depth > this.deps.config.playbooks.maxTriggerDepth) {
          await this.#loopAlert(event, version.playbookId, depth);
          continue;
        }
        const id = await this.deps.runs.create(version, { triggerEvent: { id: event.id, kind: event.kind, data: event.data }, targetAssetId: null, parameters: {}, depth, requestedBy: null, start: false });
        if (id) created += 1;
      }
    }
    return created;
  }

  async #causeDepth(event: PlatformEvent): Promise<number | null> {
    const id = event.data.execution_id;
    if (typeof id !== 'string') return null;
    if (event.kind.startsWith('playbook.')) return triggerRepository.depthOfRun(this.deps.db, id);
    if (event.kind.startsWith('action.')) return triggerRepository.depthOfExecution(this.deps.db, id);
    return null;
  }

  async #loopAlert(event: PlatformEvent, playbookId: string, depth: number): Promise<void> {
    const max = this.deps.config.playbooks.maxTriggerDepth;
    this.deps.logger.warn({ playbook_id: playbookId, event_id: event.id, depth }, 'playbook trigger loop cut');
    await this.deps.outbox.transaction(async (uow) => {
      await uow.emit({
        tenantId: event.tenantId,
        kind: 'system.alert',
        data: { alert_type: 'playbook_loop', message: `Playbook ${playbookId} was not started for event ${event.id} (${event.kind}): the chain of runs that caused the event is ${depth} deep, beyond playbooks.maxTriggerDepth (${max}).`, playbook_id: playbookId, event_id: event.id, depth },
      });
    });
  }
}
