import { ValidationError, type FieldProblem } from '../../errors.ts';
import type { PlaybookDefinition, PlaybookStep } from '../playbook-types.ts';
import { convertCommand } from './cacao-actions.ts';
import { conditionFromCacao, conditionToCacao } from './cacao-conditions.ts';
import {
  RAMPART_EXTENSION_ID, type CacaoPlaybook, type CacaoStep, type ImportPlan, type PlannedAction, type RampartPlaybookExtension, type RampartStepExtension,
} from './cacao-types.ts';
import { fromVariable, VARIABLE_KEY } from './cacao-variables.ts';
import { walkWorkflow } from './workflow-walk.ts';

const REFUSED: Record<string, string> = {
  'while-condition': 'while-condition steps are not supported: Rampart playbooks have no loops (the step graph must be acyclic)',
  'switch-condition': 'switch-condition steps are not supported: use if-condition steps',
  'playbook-action': 'playbook-action steps are not supported: Rampart playbooks do not call other playbooks',
};

function extensionOf<T>(holder: Record<string, unknown> | undefined): T | undefined {
  const value = holder?.[RAMPART_EXTENSION_ID];
  return value && typeof value === 'object' ? (value as T) : undefined;
}

/**
 * A CACAO v2 playbook (already schema-checked) as a Rampart definition plus the actions
 * it needs (docs/design/cacao.md). Every construct Rampart cannot run is reported by step
 * id in one 400 `cacao_unsupported`; nothing is dropped. The CACAO document's own fields
 * are authoritative (name, description, labels, playbook_variables, the workflow with its
 * step names and condition texts), so a document edited in a CACAO tool imports as edited.
 * The Rampart extension, when present, restores only what CACAO cannot say: the trigger,
 * on_failure, timeout and version, step ids, action_refs with their step parameters, and a
 * native condition while the CACAO condition text is still the one exported from it.
 */
export function cacaoToPlaybook(doc: CacaoPlaybook): ImportPlan {
  const problems: FieldProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ field, message });
  const ext = extensionOf<RampartPlaybookExtension>(doc.playbook_extensions);
  const workflow = doc.workflow;
  const isEnd = (id: string | undefined) => id !== undefined && workflow[id]?.type === 'end';

  for (const [id, step] of Object.entries(workflow)) {
    if (REFUSED[step.type]) problem(id, REFUSED[step.type]!);
    if (step.delay !== undefined) problem(id, 'delay is not supported: Rampart steps start as soon as the previous one ends');
    if (step.out_args !== undefined) problem(id, 'out_args are not supported: Rampart steps cannot assign variables (later steps read {{ steps.<id>.output.* }})');
  }
  if (doc.workflow_exception !== undefined && !isEnd(doc.workflow_exception)) {
    problem('workflow_exception', 'a workflow_exception step other than an end step is not supported: Rampart has one failure mode per playbook (abort or continue)');
  }
  const start = workflow[doc.workflow_start];
  const first = start?.on_completion ?? start?.on_success;
  if (!start || start.type !== 'start') problem('workflow_start', 'names no start step');
  else if (!first || isEnd(first)) problem(doc.workflow_start, 'the playbook has no step to run');
  if (!first || isEnd(first)) throw refusal(problems);

  const walk = walkWorkflow(workflow, first);
  problems.push(...walk.problems);
  for (const [id, step] of Object.entries(workflow)) {
    if (['action', 'if-condition', 'parallel'].includes(step.type) && !walk.exitOf.has(id)) problem(id, 'is not reachable from workflow_start');
  }

  // One failure mode for the whole playbook (Rampart's on_failure), from every action step's pointers.
  const modes = { abort: [] as string[], continue: [] as string[] };
  for (const id of walk.order) {
    const s = workflow[id]!;
    const success = s.on_completion ?? s.on_success;
    if (s.type !== 'action') {
      if (s.on_failure !== undefined && !isEnd(s.on_failure)) problem(id, 'on_failure to a step is supported on no step type (Rampart has one failure mode per playbook)');
      continue;
    }
    if (s.on_completion !== undefined || (s.on_failure !== undefined && s.on_failure === success)) modes.continue.push(id);
    else if (s.on_failure === undefined || isEnd(s.on_failure)) modes.abort.push(id);
    else problem(id, 'on_failure leads to a different step than on_success: Rampart has one failure mode per playbook (abort: stop the run; continue: the next step runs)');
  }
  if (!ext && modes.abort.length && modes.continue.length) {
    problem(modes.continue.join(', '), `these steps continue after a failure while ${modes.abort.join(', ')} stop the playbook: Rampart has one failure mode per playbook`);
  }

  const stepExt = (id: string) => extensionOf<RampartStepExtension>(workflow[id]!.step_extensions);
  const rid = (id: string) => { const named = stepExt(id)?.step_id; return typeof named === 'string' ? named : id; };
  const exitRid = (id: string) => { const e = walk.exitOf.get(id); return e ? rid(e) : null; };
  const variables = new Set(Object.keys(doc.playbook_variables ?? {}).filter((k) => VARIABLE_KEY.test(k)).map((k) => k.slice(2, -2)));
  const exportedVariables = new Set(Object.keys(ext?.definition?.parameters ?? {}));
  const actions = new Map<string, PlannedAction>();
  const usedNames = new Set<string>();
  const actionName = (base: string) => {
    let name = base.slice(0, 100);
    for (let n = 2; usedNames.has(name); n++) name = `${base.slice(0, 94)} #${n}`;
    usedNames.add(name);
    return name;
  };
  const steps: PlaybookStep[] = [];

  for (const id of walk.order) {
    const s: CacaoStep = workflow[id]!;
    const se = stepExt(id);
    const name = (s.name ?? se?.name ?? id).slice(0, 200);
    const cont = s.on_completion ?? s.on_success;
    if (s.type === 'action') {
      const next = cont && !isEnd(cont) ? rid(cont) : exitRid(id);
      const known = se?.action_ref !== undefined ? ext?.actions?.[se.action_ref] : undefined;
      if (se?.action_ref !== undefined && (known || !s.commands?.length || s.commands.length === 1)) {
        if (known) actions.set(se.action_ref, { ref: se.action_ref, input: known });
        steps.push(pointing({ id: rid(id), name, type: 'action', action_ref: se.action_ref, parameters: se.parameters ?? {} }, { on_success: next }));
        continue;
      }
      // Several commands run one after the other: one Rampart step each.
      const commands = s.commands ?? [];
      commands.forEach((c, i) => {
        const stepId = i === 0 ? rid(id) : `${rid(id)}-${i + 1}`;
        const converted = convertCommand(doc, id, s, c, actionName(`${doc.name}: ${s.name ?? id}${commands.length > 1 ? ` (${i + 1})` : ''}`), problems);
        if (!converted) return;
        actions.set(converted.input.name, { ref: converted.input.name, input: converted.input });
        const on = i + 1 < commands.length ? `${rid(id)}-${i + 2}` : next;
        steps.push(pointing({ id: stepId, name: i === 0 ? name : `${name} (${i + 1})`.slice(0, 200), type: 'action', action_ref: converted.input.name, parameters: converted.parameters }, { on_success: on }));
      });
    } else if (s.type === 'if-condition') {
      const inner = cont && !isEnd(cont) ? rid(cont) : exitRid(id);
      const branch = (target: string | undefined) => (target && !isEnd(target) ? rid(target) : inner);
      // The native condition only while the CACAO text is still what it exports to (an edited text wins).
      let condition = se?.condition && s.condition === conditionToCacao(se.condition, exportedVariables) ? se.condition : undefined;
      if (!condition) {
        const parsed = conditionFromCacao(s.condition ?? '', variables);
        if ('problem' in parsed) { problem(id, parsed.problem); continue; }
        condition = parsed.set;
      }
      steps.push(pointing({ id: rid(id), name, type: 'condition', if: condition }, { on_true: branch(s.on_true), on_false: branch(s.on_false) }));
    } else if (s.type === 'parallel') {
      const branches = (s.next_steps ?? []).filter((b) => !isEnd(b)).map(rid);
      if (!branches.length) { problem(id, 'a parallel step whose branches are all empty'); continue; }
      steps.push(pointing({ id: rid(id), name, type: 'parallel', next_steps: branches }, { on_success: cont && !isEnd(cont) ? rid(cont) : exitRid(id) }));
    }
  }
  if (problems.length) throw refusal(problems);
  for (const id of walk.order) {
    const listed = stepExt(id)?.null_pointers;
    const written = Array.isArray(listed) ? listed : [];
    const step = steps.find((s) => s.id === rid(id)) as unknown as Record<string, unknown> | undefined;
    for (const key of written) if (step && ['on_success', 'on_true', 'on_false'].includes(key) && !(key in step)) step[key] = null;
  }

  if (ext && Array.isArray(ext.step_order)) {
    const at = (id: string) => { const i = ext.step_order.indexOf(id); return i < 0 ? Number.MAX_SAFE_INTEGER : i; };
    const dfs = new Map(steps.map((s, i) => [s.id, i]));
    steps.sort((a, b) => at(a.id) - at(b.id) || dfs.get(a.id)! - dfs.get(b.id)!);
  }
  const parameters = Object.fromEntries(Object.entries(doc.playbook_variables ?? {}).filter(([k]) => VARIABLE_KEY.test(k)).map(([k, v]) => [k.slice(2, -2), fromVariable(v)]));
  const own = { name: doc.name.slice(0, 200), description: (doc.description ?? '').slice(0, 2000), tags: doc.labels ?? [], parameters };
  const definition: PlaybookDefinition = ext?.definition
    ? { ...ext.definition, ...own, steps }
    : { ...own, version: '1.0.0', trigger: { event: 'manual', conditions: {} }, steps, on_failure: modes.continue.length && !modes.abort.length ? 'continue' : 'abort', timeout_minutes: 60 };
  return { definition, actions: [...actions.values()] };
}

/** A step with its next-step pointers; none (the end of a branch) is left out rather than null. */
function pointing<T extends PlaybookStep>(step: T, pointers: Record<string, string | null>): T {
  for (const [key, target] of Object.entries(pointers)) if (target !== null) (step as unknown as Record<string, unknown>)[key] = target;
  return step;
}

function refusal(problems: FieldProblem[]): ValidationError {
  return new ValidationError(`The CACAO playbook uses constructs Rampart cannot run: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}.`, problems, 'cacao_unsupported');
}
