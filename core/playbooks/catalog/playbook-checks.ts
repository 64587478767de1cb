import { ValidationError, type FieldProblem } from '../../errors.ts';
import { conditionProblems } from '../language/conditions.ts';
import { stepGraphProblems, stepsBefore } from '../language/step-graph.ts';
import { staticPlaceholderProblems } from '../language/templates.ts';
import type { ConditionSet, PlaybookDefinition } from '../playbook-types.ts';
import { resolveActionRef, type ActionLookup } from './action-ref.ts';
import { MAX_VALUE_DEPTH, nestsDeeperThan } from '../language/placeholders.ts';

/** Every `steps.<id>` a condition set's paths name (keys, through `any`/`all`). */
function stepsNamedIn(set: ConditionSet, into: Set<string> = new Set()): Set<string> {
  for (const [key, value] of Object.entries(set)) {
    if ((key === 'any' || key === 'all') && Array.isArray(value)) {
      for (const inner of value) if (inner && typeof inner === 'object') stepsNamedIn(inner as ConditionSet, into);
    } else if (key.startsWith('steps.')) {
      into.add(key.split('.')[1] ?? '');
    }
  }
  return into;
}

/**
 * One field style in every 400 (the routes' joi paths: `steps.2.on_success`, not
 * `steps[2].on_success`), and the step's id in the message, not only its index.
 */
function namingTheStep(def: PlaybookDefinition, p: FieldProblem): FieldProblem {
  const field = p.field.replace(/\[(\d+)\]/g, '.$1');
  const index = /^steps\.(\d+)(?:\.|$)/.exec(field);
  const step = index ? def.steps[Number(index[1])] : undefined;
  const named = step && (p.message.startsWith(`step ${step.id}`) || p.message.startsWith(`step "${step.id}"`));
  return { field, message: step && !named ? `step ${step.id}: ${p.message}` : p.message };
}

/**
 * The language checks of a shaped definition (core/playbooks/language), all problems at
 * once: the step graph first (a broken graph makes "which steps ran before" meaningless,
 * so placeholders are checked only on a sound one), then the trigger's conditions (over
 * event data), each condition step's `if` (over the run context), and every placeholder
 * of every action step's parameters. 400 `invalid_playbook` with a detail per problem.
 */
export function checkLanguage(def: PlaybookDefinition): void {
  const problems: FieldProblem[] = stepGraphProblems(def.steps).map((p) => namingTheStep(def, p));
  const graphSound = problems.length === 0;
  problems.push(...conditionProblems(def.trigger.conditions, { paths: 'event-data', field: 'trigger.conditions' }).map((p) => namingTheStep(def, p)));
  const ids = def.steps.map((s) => s.id);
  const before = graphSound ? stepsBefore(def.steps) : null;
  def.steps.forEach((step, i) => {
    if (step.type === 'condition') {
      const field = `steps.${i}.if`;
      problems.push(...conditionProblems(step.if, { paths: 'context', field }).map((p) => namingTheStep(def, p)));
      // A path on a step that does not exist (or on the step itself) could never hold.
      for (const named of stepsNamedIn(step.if)) {
        if (named === step.id || !ids.includes(named)) problems.push({ field, message: `step ${step.id}: "steps.${named}" names no other step of this playbook` });
      }
    }
    if (step.type === 'action' && nestsDeeperThan(step.parameters, MAX_VALUE_DEPTH)) {
      problems.push({ field: `steps.${i}.parameters`, message: `step ${step.id}: the parameters nest deeper than ${MAX_VALUE_DEPTH} levels` });
    } else if (step.type === 'action' && before) {
      const messages = staticPlaceholderProblems(step.parameters, {
        stepIds: ids,
        earlierStepIds: (id) => [...(before.get(id) ?? [])],
        triggerEvent: def.trigger.event,
        // No declaration (the spec's playbook): any name, checked when a run renders it.
        parameterNames: Object.keys(def.parameters ?? {}).length ? Object.keys(def.parameters) : null,
        stepId: step.id,
      });
      for (const message of messages) problems.push({ field: `steps.${i}.parameters`, message: `step ${step.id}: ${message}` });
    }
  });
  if (problems.length) {
    throw new ValidationError(`Invalid playbook: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}.`, problems, 'invalid_playbook');
  }
}

/**
 * Every action step's `action_ref` must name an action of the tenant (and a pinned
 * version must be registered): 400 `unknown_action_ref` with a detail per step. Refs in
 * `knownRefs` count as resolving (the CACAO import checks a playbook whose actions it
 * has not created yet).
 */
export async function checkActionRefs(actions: ActionLookup, tenantId: string, def: PlaybookDefinition, knownRefs: ReadonlySet<string> = new Set()): Promise<void> {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, boolean>();
  for (const [i, step] of def.steps.entries()) {
    if (step.type !== 'action' || knownRefs.has(step.action_ref)) continue;
    let ok = seen.get(step.action_ref);
    if (ok === undefined) {
      ok = (await resolveActionRef(actions, tenantId, step.action_ref)) !== null;
      seen.set(step.action_ref, ok);
    }
    if (!ok) problems.push({ field: `steps.${i}.action_ref`, message: `step ${step.id}: "${step.action_ref}" names no action of this tenant${step.action_ref.includes('@') ? ' (or that version is not registered)' : ''}` });
  }
  if (problems.length) {
    throw new ValidationError(`Unknown action_ref: ${problems.map((p) => p.message).join('; ')}.`, problems, 'unknown_action_ref');
  }
}
