import type { ExecutionService } from '../../action-runs/execution-service.ts';
import type { ExecutionControl } from '../../action-runs/execution-control.ts';
import type { ActionLookup } from '../catalog/action-ref.ts';
import type { PlaybookVersion } from '../playbook-types.ts';

/** The playbook catalog as the engine reads it (ctx.services.playbooks). */
export interface PlaybookSource {
  forRun(tenantId: string, playbookId: string): Promise<PlaybookVersion>;
  enabledForEvent(tenantId: string, eventKind: string): Promise<PlaybookVersion[]>;
}

/** What the engine uses of the actions feature: runs, cancels and the action catalog. */
export interface ActionPorts {
  executions: Pick<ExecutionService, 'trigger' | 'get' | 'plan'>;
  control: Pick<ExecutionControl, 'cancel'>;
  actions: ActionLookup;
}

/** The run's asset as placeholders see it; null when there is no such asset in the tenant. */
export type AssetLookup = (tenantId: string, id: string) => Promise<Record<string, unknown> | null>;
