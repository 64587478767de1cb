import type { Principal } from '../../action-runs/execution-service.ts';
import { RampartError, ValidationError } from '../../errors.ts';
import { parseActionRef, resolveActionRef } from '../catalog/action-ref.ts';
import { evaluateConditions } from '../language/conditions.ts';
import { missingParameterNames, missingValuesError, renderParameters, type RunContext } from '../language/templates.ts';
import type { PlaybookStep, PlaybookVersion } from '../playbook-types.ts';
import { baseContext, eventAsset } from './run-context.ts';
import type { ActionPorts } from './run-ports.ts';
import { nextSteps, type StepOutcome } from './step-flow.ts';

export interface StepMock {
  status: 'completed' | 'failed';
  output?: Record<string, unknown>;
}

export interface DryRunRequest {
  target_asset_id?: string | null;
  parameters?: Record<string, unknown>;
  mocks?: Record<string, StepMock>;
  /** The event the walk pretends triggered the run (placeholders `event.*`, `finding.*`). */
  event?: { kind: string; data?: Record<string, unknown> };
}

export interface PlannedStep {
  step_id: string;
  step_name: string;
  type: PlaybookStep['type'];
  would_run: boolean;
  action: { id: string; name: string; version: string } | null;
  parameters: unknown;
  unresolved_placeholders: string[];
  plan: { status: 'completed' | 'failed'; request: Record<string, unknown> | null; error: { code: string; message: string } | null } | null;
  outcome: { status: StepOutcome['status']; output: unknown; mocked: boolean } | null;
  branch: 'on_true' | 'on_false' | null;
}

export interface DryRunResult {
  playbook_id: string;
  dry_run: true;
  /** `failed` exactly when a run would end failed: a step fails (its plan or its mock) and on_failure is abort. */
  status: 'completed' | 'failed';
  /** The steps whose outcome is failed, in walk order (with on_failure continue the run still completes). */
  failed_steps: string[];
  steps: PlannedStep[];
}

/**
 * Walks a playbook's flow without running anything: each action step's action (name
 * and version), its rendered parameters (an unresolved placeholder is reported, not
 * fatal, except a missing run parameter, which a run would fail on too) and what its
 * executor would send (`executions.plan`, secrets masked); condition steps evaluated
 * over the walk's context; parallel branches walked one after another before the join.
 * A mocked step "returns" its mock; an unmocked action step takes its plan's status
 * (failed when the run would be refused: unknown action, invalid parameters, missing
 * parameter), with output `{}`. A failing step follows `on_failure` as a run would, so
 * the plan's status is the one the run would end with.
 * Steps the walk never reaches are listed last with `would_run: false`.
 */
export async function planRun(ports: ActionPorts, who: Principal, version: PlaybookVersion, req: DryRunRequest, target: Record<string, unknown> | null): Promise<DryRunResult> {
  const byId = new Map(version.steps.map((s) => [s.id, s]));
  mockProblems(req.mocks ?? {}, byId);
  const event = req.event ? { kind: req.event.kind, data: req.event.data ?? {} } : null;
  const context = baseContext(event, target ?? eventAsset(event?.data), { ...version.parameters, ...(req.parameters ?? {}) }, {});
  const planned = new Map<string, PlannedStep>();
  let failed = false;
  const failedSteps: string[] = [];

  const visit = async (id: string): Promise<void> => {
    const step = byId.get(id);
    if (!step || failed || planned.has(id)) return;
    const entry: PlannedStep = { step_id: id, step_name: step.name, type: step.type, would_run: true, action: null, parameters: null, unresolved_placeholders: [], plan: null, outcome: null, branch: null };
    planned.set(id, entry);
    let outcome: StepOutcome;
    if (step.type === 'action') {
      await planAction(ports, who, step, context, req.target_asset_id ?? null, entry);
      const mock = req.mocks?.[id];
      outcome = { status: mock?.status ?? (entry.plan?.status === 'failed' ? 'failed' : 'completed'), output: mock?.output ?? {} };
      entry.outcome = { ...outcome, mocked: Boolean(mock) };
    } else if (step.type === 'condition') {
      const result = evaluateConditions(step.if, context);
      entry.branch = result ? 'on_true' : 'on_false';
      outcome = { status: 'completed', output: { result } };
      entry.outcome = { ...outcome, mocked: false };
    } else {
      outcome = { status: 'completed', output: {} };
      entry.outcome = { ...outcome, mocked: false };
      for (const branch of step.next_steps) await visit(branch);
      if (failed) return;
    }
    context.steps[id] = { status: outcome.status, output: outcome.output };
    if (outcome.status === 'failed') failedSteps.push(id);
    if (outcome.status === 'failed' && version.on_failure === 'abort') {
      failed = true;
      return;
    }
    for (const next of nextSteps(step, outcome, version.on_failure)) await visit(next);
  };
  if (version.steps[0]) await visit(version.steps[0].id);
  const skipped = version.steps.filter((s) => !planned.has(s.id)).map<PlannedStep>((s) => ({ step_id: s.id, step_name: s.name, type: s.type, would_run: false, action: null, parameters: null, unresolved_placeholders: [], plan: null, outcome: null, branch: null }));
  return { playbook_id: version.playbookId, dry_run: true, status: failed ? 'failed' : 'completed', failed_steps: failedSteps, steps: [...planned.values(), ...skipped] };
}

async function planAction(ports: ActionPorts, who: Principal, step: Extract<PlaybookStep, { type: 'action' }>, context: RunContext, target: string | null, entry: PlannedStep): Promise<void> {
  const rendered = renderParameters(step.parameters ?? {}, context);
  entry.parameters = rendered.value;
  entry.unresolved_placeholders = rendered.missing;
  if (missingParameterNames(rendered.missing).length) {
    const { code, message } = missingValuesError(step.id, rendered.missing);
    entry.plan = { status: 'failed', request: null, error: { code, message } };
  }
  const action = await resolveActionRef(ports.actions, who.tenantId, step.action_ref);
  if (!action) {
    entry.plan = { status: 'failed', request: null, error: { code: 'unknown_action_ref', message: `The action "${step.action_ref}" does not exist in this tenant.` } };
    return;
  }
  entry.action = { id: action.actionId, name: action.name, version: action.version };
  if (entry.plan) return;
  const pinned = parseActionRef(step.action_ref).version;
  try {
    const result = await ports.executions.plan(who, action.actionId, { target, parameters: (rendered.value ?? {}) as Record<string, unknown> }, pinned ? { version: pinned } : {});
    entry.plan = { status: result.status, request: result.plan, error: result.error };
  } catch (err) {
    if (!(err instanceof RampartError)) throw err;
    entry.plan = { status: 'failed', request: null, error: { code: err.code, message: err.message, ...(err.extra.details ? { details: err.extra.details as unknown[] } : {}) } };
  }
}

/** Mocks name action steps of this playbook: anything else is a 400 naming the mock. */
function mockProblems(mocks: Record<string, StepMock>, byId: Map<string, PlaybookStep>): void {
  const details = Object.keys(mocks).flatMap((id) => {
    const step = byId.get(id);
    if (!step) return [{ field: `mocks.${id}`, message: `The playbook has no step "${id}".` }];
    if (step.type !== 'action') return [{ field: `mocks.${id}`, message: `Step "${id}" is a ${step.type} step: only action steps can be mocked.` }];
    return [];
  });
  if (details.length) throw new ValidationError('Some mocks do not name an action step of this playbook.', details);
}
