import Joi from 'joi';
import { ACTION_NAME_PATTERN, DEFINITION_TYPE_PATTERN, EXECUTOR_KINDS, MAX_TIMEOUT_SECONDS } from '../../actions/action-kinds.ts';
import { draftFromReference, type ReferenceActionInput, type VersionDraft } from '../../actions/action-draft.ts';
import type { ActionVersion } from '../../actions/action-version.ts';
import type { UrlRules } from '../../actions/destination-url.ts';
import { ValidationError, type FieldProblem } from '../../errors.ts';
import { parseActionRef, resolveActionRef, type ActionLookup } from '../catalog/action-ref.ts';
import type { PlannedAction } from './cacao-types.ts';

/**
 * What an import does with each action the converted playbook needs, decided before
 * anything is written: the tenant's action of that name when it behaves identically
 * (same type, executor, config with defaults, parameters; timeout and retry are not
 * compared) is reused; a name the tenant does not use is created; a name taken by a
 * different action is a conflict (409 `cacao_action_conflict`, never a silent rename).
 */
export interface ActionDecision {
  planned: PlannedAction;
  /** The tenant's action reused, or null when the import creates it. */
  existing: ActionVersion | null;
}

export interface ActionPlanResult {
  decisions: ActionDecision[];
  conflicts: FieldProblem[];
}

const stable = (v: unknown): string => JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/** An action's behaviour in one comparable form, whichever view registered it. */
function behaviour(type: string, executor: { type: string; target?: string; method?: string }, config: Record<string, unknown>, inputMapping: unknown, parameters: unknown): string {
  const merged: Record<string, unknown> = { ...config };
  if (executor.target !== undefined) merged.target = executor.target;
  if (executor.method !== undefined) merged.method = executor.method;
  if (inputMapping !== null && inputMapping !== undefined) merged.input_mapping = inputMapping;
  return stable({ type, executor: executor.type, config: merged, parameters });
}

const draftBehaviour = (d: VersionDraft) => behaviour(d.type, d.executor, d.config, d.inputMapping, d.parameters);
const versionBehaviour = (a: ActionVersion) => behaviour(a.type, a.executor, a.config, a.inputMapping, a.parameters);

/**
 * The outer shape of an action input, as `POST /api/actions` checks it before the catalog
 * does: an imported document's extension is untrusted input like any request body. Types
 * may be a definition's custom type (an export of a definition carries it).
 */
const inputShape = Joi.object({
  name: Joi.string().pattern(ACTION_NAME_PATTERN).required(),
  type: Joi.string().pattern(DEFINITION_TYPE_PATTERN).required(),
  executor: Joi.string().valid(...EXECUTOR_KINDS).required(),
  description: Joi.string().allow('').max(2000),
  parameters: Joi.array().items(Joi.object().unknown(true)).max(50),
  config: Joi.object().unknown(true),
  version: Joi.string().max(50),
  timeout_seconds: Joi.number().integer().min(1).max(MAX_TIMEOUT_SECONDS),
  retry: Joi.object({ max_attempts: Joi.number().integer().min(1).max(10).required(), backoff_seconds: Joi.number().integer().min(0).max(3600).required() }),
});

/** Checks every planned action as the catalog would (400, fields `actions.<i>.…`) and decides reuse, create or conflict. */
export async function planActions(actions: ActionLookup, urlRules: UrlRules, tenantId: string, planned: PlannedAction[]): Promise<ActionPlanResult> {
  const problems: FieldProblem[] = [];
  const drafts = planned.map((p, i) => {
    const { error } = inputShape.validate(p.input, { abortEarly: false, convert: false });
    if (error) {
      for (const d of error.details) problems.push({ field: `actions.${i}.${d.path.join('.')}`, message: `action "${String(p.input.name)}": ${d.message.replace(/"/g, '')}` });
      return null;
    }
    try {
      return draftFromReference(p.input, urlRules);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      for (const d of (err.extra.details ?? []) as FieldProblem[]) problems.push({ field: `actions.${i}.${d.field}`, message: `action "${p.input.name}": ${d.message}` });
      return null;
    }
  });
  if (problems.length) throw new ValidationError(`An action of the CACAO playbook is not valid: ${problems.map((p) => p.message).join('; ')}.`, problems, 'cacao_action_invalid');
  const decisions: ActionDecision[] = [];
  const conflicts: FieldProblem[] = [];
  for (const [i, p] of planned.entries()) {
    const pinned = parseActionRef(p.ref).version;
    const byName = await actions.findByName(tenantId, p.input.name);
    if (!byName) { decisions.push({ planned: p, existing: null }); continue; }
    const compared = pinned ? await resolveActionRef(actions, tenantId, `${byName.actionId}@${pinned}`) : byName;
    if (compared && versionBehaviour(compared) === draftBehaviour(drafts[i]!)) decisions.push({ planned: p, existing: compared });
    else conflicts.push({ field: `actions.${i}.name`, message: `the tenant already has a different action named "${p.input.name}"${pinned ? ` (or no version ${pinned} of it)` : ''}: rename it in the document or the tenant` });
  }
  return { decisions, conflicts };
}

/**
 * The action_ref a step should say once the import is done: name forms stay (the name is
 * the same); an id form (an export from elsewhere) becomes the reused or created action's
 * id, keeping a version pin. `createdId` is null in a dry run (the name is used then).
 */
export function finalRef(decision: ActionDecision, createdId: string | null): string {
  const parsed = parseActionRef(decision.planned.ref);
  if (parsed.kind === 'name') return decision.planned.ref;
  const id = decision.existing?.actionId ?? createdId;
  const head = id ?? decision.planned.input.name;
  return parsed.version ? `${head}@${parsed.version}` : head;
}

export type { ReferenceActionInput };
