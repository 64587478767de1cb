import type { Config } from '../../config/load-config.ts';
import type { Db } from '../db/create-db.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import type { Outbox } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { ExecutorAsset } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { BackgroundService } from '../work/background-registry.ts';
import { ExecutionControl } from './execution-control.ts';
import { ExecutionService } from './execution-service.ts';
import type { AgentHandleFactory, ApprovalPort, CatalogPort, CredentialPort } from './run-ports.ts';
import { RunWorker } from './run-worker.ts';
import { FinishHooks } from './finish-hooks.ts';

export interface ActionRuntimeDeps {
  config: Config;
  db: Db;
  outbox: Outbox<EventPayloads>;
  logger: Logger;
  plugins: PluginRegistry;
  outbound: OutboundHttpClient;
  catalog: CatalogPort;
  credentials: CredentialPort;
  approvals?: ApprovalPort;
  agents?: AgentHandleFactory;
  asset(tenantId: string, id: string): Promise<ExecutorAsset | null>;
  clock?: () => number;
}

export interface ActionRuntime {
  executions: ExecutionService;
  control: ExecutionControl;
  worker: RunWorker;
  /** Parents of runs (playbook steps) register here to learn, in the same transaction, that a run ended. */
  hooks: FinishHooks;
  background: BackgroundService;
}

/** Wires the action run engine: the service the routes call, outside control (cancel, approvals) and the run worker. */
export function createActionRuntime(d: ActionRuntimeDeps): ActionRuntime {
  const common = { plugins: d.plugins, outbound: d.outbound, credentials: d.credentials, config: d.config.executors, agents: d.agents };
  const hooks = new FinishHooks();
  const worker = new RunWorker({ ...common, db: d.db, outbox: d.outbox, logger: d.logger, asset: d.asset, hooks, clock: d.clock });
  const executions = new ExecutionService({ ...common, db: d.db, outbox: d.outbox, catalog: d.catalog, approvals: d.approvals, asset: d.asset, wake: () => worker.wake(), clock: d.clock });
  const control = new ExecutionControl({ db: d.db, outbox: d.outbox, approvals: d.approvals, hooks, clock: d.clock });
  d.approvals?.onResolved('action_execution', (request) => control.onApprovalResolved(request));
  return {
    executions,
    control,
    worker,
    hooks,
    background: { name: 'action-runs', roles: ['worker'], start: () => worker.start(), stop: () => worker.stop() },
  };
}
