import type { FieldProblem } from '../../errors.ts';
import type { PlaybookStep } from '../playbook-types.ts';
import { edgesOf, indexById, reachFrom, referencesOf, type Edge } from './step-edges.ts';

export { stepsBefore } from './steps-before.ts';

export const MAX_STEPS = 100;
export const STEP_ID = /^[A-Za-z0-9_-]{1,64}$/;
const STEP_TYPES = ['action', 'condition', 'parallel'];

type Loose = Record<string, unknown>;

function shapeProblems(steps: readonly unknown[], add: (field: string, message: string) => void): void {
  const firstAt = new Map<string, number>();
  steps.forEach((step, i) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) return add(`steps[${i}]`, 'must be a step object');
    const s = step as Loose;
    if (typeof s.id !== 'string' || !STEP_ID.test(s.id)) {
      add(`steps[${i}].id`, 'must be 1 to 64 letters, digits, "_" or "-"');
    } else if (firstAt.has(s.id)) {
      add(`steps[${i}].id`, `duplicate step id "${s.id}" (steps[${firstAt.get(s.id)}] has it too)`);
    } else {
      firstAt.set(s.id, i);
    }
    if (!STEP_TYPES.includes(s.type as string)) add(`steps[${i}].type`, `must be one of ${STEP_TYPES.join(', ')}`);
    if (s.type === 'parallel') {
      if (!Array.isArray(s.next_steps) || s.next_steps.length === 0) add(`steps[${i}].next_steps`, 'a parallel step needs at least one branch');
      else {
        const seen = new Set<unknown>();
        s.next_steps.forEach((v, k) => {
          if (seen.has(v)) add(`steps[${i}].next_steps[${k}]`, `names the branch "${String(v)}" twice`);
          seen.add(v);
        });
      }
    }
  });
  const byId = indexById(steps);
  steps.forEach((step, i) => {
    for (const ref of referencesOf(step, i)) {
      if (typeof ref.value !== 'string') add(ref.field, 'must be a step id (a string) or null');
      else if (!byId.has(ref.value)) add(ref.field, `names no step: "${ref.value}"`);
    }
  });
}

function cycleProblems(steps: readonly unknown[], edges: Edge[][], byId: Map<string, number>, add: (f: string, m: string) => void): boolean {
  const state = new Array<0 | 1 | 2>(steps.length).fill(0); // unvisited, on the path, done
  const path: number[] = [];
  let found = false;
  const idOf = (i: number): string => (steps[i] as Loose).id as string;
  const visit = (i: number): void => {
    state[i] = 1;
    path.push(i);
    for (const e of edges[i]!) {
      const to = byId.get(e.to)!;
      if (state[to] === 1) {
        found = true;
        const loop = [...path.slice(path.indexOf(to)), to].map(idOf).join(' → ');
        add(e.field, `closes a cycle: ${loop} (steps may not loop)`);
      } else if (state[to] === 0) visit(to);
    }
    path.pop();
    state[i] = 2;
  };
  steps.forEach((_, i) => state[i] === 0 && visit(i));
  return found;
}

/**
 * A parallel step's branches (each the steps reachable from one of its `next_steps`) must
 * not reach its join step (`on_success`) nor share a step with another branch, and a step
 * inside a branch is entered only from inside that branch: so "every branch has ended"
 * is well defined and the join runs exactly once.
 */
function parallelProblems(steps: readonly unknown[], edges: Edge[][], byId: Map<string, number>, add: (f: string, m: string) => void): void {
  steps.forEach((step, p) => {
    const s = step as PlaybookStep;
    if (s?.type !== 'parallel') return;
    const branches = edges[p]!.filter((e, k, all) => e.kind === 'branch' && all.findIndex((x) => x.kind === 'branch' && x.to === e.to) === k);
    const reaches = branches.map((b) => reachFrom(byId.get(b.to)!, edges, byId));
    const join = s.on_success ? byId.get(s.on_success) : undefined;
    branches.forEach((b, k) => {
      if (join !== undefined && reaches[k]!.has(join)) {
        add(b.field, `branch "${b.to}" reaches the join step "${s.on_success}": a branch ends at a step with no next step, and the join runs after every branch has ended`);
      }
      for (let l = 0; l < k; l++) {
        const shared = [...reaches[k]!].filter((i) => reaches[l]!.has(i)).map((i) => (steps[i] as Loose).id);
        if (shared.length > 0) add(b.field, `branch "${b.to}" shares step(s) ${shared.map((x) => `"${x}"`).join(', ')} with branch "${branches[l]!.to}": parallel branches must be separate`);
      }
    });
    const inAnyBranch = (i: number): boolean => i === p || reaches.some((r) => r.has(i));
    branches.forEach((b, k) => {
      for (const edgeList of edges) {
        for (const e of edgeList) {
          const to = byId.get(e.to)!;
          if (!reaches[k]!.has(to) || reaches[k]!.has(e.from) || (e.from === p && e.to === b.to) || inAnyBranch(e.from)) continue;
          add(e.field, `leads into step "${e.to}", inside branch "${b.to}" of parallel step "${s.id}": a branch step is reached only from inside its branch`);
        }
      }
    });
  });
}

/**
 * Every problem of a step list, each naming the step field at fault: ids (syntax,
 * duplicates), references (`on_success`, `on_true`, `on_false`, `next_steps`) to
 * missing steps, cycles, steps never reached from the first, the parallel rules above,
 * and more than MAX_STEPS steps.
 */
export function stepGraphProblems(input: PlaybookStep[]): FieldProblem[] {
  const steps: readonly unknown[] = input; // validated here, so not trusted to match the type yet
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string): void => void problems.push({ field, message });
  if (!Array.isArray(input) || steps.length === 0) return [{ field: 'steps', message: 'a playbook needs at least one step' }];
  if (steps.length > MAX_STEPS) add('steps', `has ${steps.length} steps; at most ${MAX_STEPS}`);
  shapeProblems(steps, add);
  const byId = indexById(steps);
  const edges = edgesOf(steps, byId);
  const cyclic = cycleProblems(steps, edges, byId, add);
  const reached = reachFrom(0, edges, byId);
  const first = (steps[0] as Loose | null)?.id;
  steps.forEach((step, i) => {
    const id = (step as Loose | null)?.id;
    if (!reached.has(i) && typeof id === 'string' && byId.get(id) === i) add(`steps[${i}]`, `step "${id}" is never reached from the first step "${String(first)}"`);
  });
  if (!cyclic) parallelProblems(steps, edges, byId, add);
  return problems;
}
