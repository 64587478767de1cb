import type { FieldProblem } from '../../errors.ts';
import type { CacaoStep } from './cacao-types.ts';

export interface WorkflowWalk {
  /** Reachable non-end steps in depth-first order from the first step. */
  order: string[];
  /**
   * Where each reachable step's branch continues once it reaches an `end` step: the step
   * after the enclosing if-condition (its on_completion), null for the end of the run or
   * of a parallel branch (the join). A CACAO branch returns to the step that opened it;
   * a Rampart branch continues by pointer, so every pointer to an `end` becomes this.
   */
  exitOf: Map<string, string | null>;
  problems: FieldProblem[];
}

/**
 * Steps one branch may chain before the walk stops: it recurses once per step, and a
 * playbook holds at most 100 steps anyway (4,000 chained if-conditions overflowed the stack).
 */
export const MAX_WORKFLOW_CHAIN = 500;

/** Walks a CACAO workflow from its first step, deciding where each branch rejoins. */
export function walkWorkflow(workflow: Record<string, CacaoStep>, first: string): WorkflowWalk {
  const order: string[] = [];
  const exitOf = new Map<string, string | null>();
  const problems: FieldProblem[] = [];
  const isEnd = (id: string) => workflow[id]?.type === 'end';
  let tooLong = false;
  const visit = (id: string | undefined, exit: string | null, from: string, depth = 0): void => {
    if (id === undefined || tooLong) return;
    if (depth > MAX_WORKFLOW_CHAIN) {
      tooLong = true;
      problems.push({ field: from, message: `the workflow chains more than ${MAX_WORKFLOW_CHAIN} steps one after the other` });
      return;
    }
    const step = workflow[id];
    if (!step) { problems.push({ field: from, message: `points to ${id}, which is not a step of the workflow` }); return; }
    if (step.type === 'end') return;
    if (exitOf.has(id)) {
      if (exitOf.get(id) !== exit) problems.push({ field: id, message: 'is reached from branches that continue at different steps, which Rampart cannot express' });
      return;
    }
    exitOf.set(id, exit);
    order.push(id);
    const cont = step.on_completion ?? step.on_success;
    if (step.type === 'if-condition') {
      const inner = cont && !isEnd(cont) ? cont : exit;
      visit(step.on_true, inner, id, depth + 1);
      visit(step.on_false, inner, id, depth + 1);
    } else if (step.type === 'parallel') {
      for (const branch of step.next_steps ?? []) visit(branch, null, id, depth + 1);
    } else if (step.type !== 'action') {
      // A construct the importer refuses: walk on so the steps behind it are checked (and reported) too.
      const s = step as CacaoStep & { cases?: Record<string, string> };
      for (const target of [s.on_true, s.on_false, ...(s.next_steps ?? []), ...Object.values(s.cases ?? {})]) visit(target, exit, id, depth + 1);
    }
    visit(cont, exit, id, depth + 1);
  };
  visit(first, null, 'workflow_start');
  return { order, exitOf, problems };
}
