import type { Config } from '../../../config/load-config.ts';
import type { FinishHooks } from '../../action-runs/finish-hooks.ts';
import type { Db } from '../../db/create-db.ts';
import type { EventPayloads } from '../../domain/event-payloads.ts';
import type { EventBus } from '../../events/event-bus.ts';
import type { Outbox } from '../../events/outbox.ts';
import type { Logger } from '../../logger.ts';
import type { BackgroundService } from '../../work/background-registry.ts';
import type { TriggeredRunCharge } from '../triggers/trigger-budget.ts';
import { TriggerConsumer } from '../triggers/trigger-consumer.ts';
import type { ActionPorts, AssetLookup, PlaybookSource } from './run-ports.ts';
import { PlaybookRunService } from './run-service.ts';
import { PlaybookRunWorker } from './run-worker.ts';

export interface PlaybookRuntimeDeps {
  config: Config;
  db: Db;
  bus: EventBus;
  outbox: Outbox<EventPayloads>;
  logger: Logger;
  playbooks: PlaybookSource;
  ports: ActionPorts;
  hooks: FinishHooks;
  asset: AssetLookup;
  /** Charges runs caused by runs to the tenant's request budget (triggers/trigger-budget.ts). */
  charge?: TriggeredRunCharge;
}

export interface PlaybookRuntime {
  runs: PlaybookRunService;
  worker: PlaybookRunWorker;
  triggers: TriggerConsumer;
  background: BackgroundService[];
}

/**
 * Wires the playbook run engine: the service the routes call, the run worker (woken by
 * new runs, by events — a step's action ending commits an event — and by its poll), the
 * trigger consumer, and the finish hook that wakes a run inside its step action's ending
 * transaction.
 */
export function createPlaybookRuntime(d: PlaybookRuntimeDeps): PlaybookRuntime {
  const worker = new PlaybookRunWorker({ db: d.db, outbox: d.outbox, logger: d.logger, config: d.config.playbooks, ports: d.ports });
  const runs = new PlaybookRunService({ db: d.db, outbox: d.outbox, playbooks: d.playbooks, ports: d.ports, asset: d.asset, wake: () => worker.wake(), now: () => worker.now(), cancelWaitMs: d.config.playbooks.leaseMs });
  d.hooks.onFinished('playbook_step', (row, trx) => runs.onStepActionFinished(row, trx));
  const triggers = new TriggerConsumer({ db: d.db, bus: d.bus, outbox: d.outbox, logger: d.logger, config: d.config, playbooks: d.playbooks, runs, onRuns: () => worker.wake(), ...(d.charge ? { charge: d.charge } : {}) });
  let unsubscribe: (() => void) | null = null;
  return {
    runs,
    worker,
    triggers,
    background: [
      {
        name: 'playbook-runs',
        roles: ['worker'],
        start: () => {
          unsubscribe = d.bus.subscribe(() => worker.wake());
          worker.start();
        },
        stop: async () => {
          unsubscribe?.();
          unsubscribe = null;
          await worker.stop();
        },
      },
      { name: 'playbook-triggers', roles: ['worker'], start: () => triggers.start(), stop: () => triggers.stop() },
    ],
  };
}
