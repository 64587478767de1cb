import type { PlaybookDefinition, PlaybookStep } from '../playbook-types.ts';

/** How a step ended, as the flow sees it. */
export interface StepOutcome {
  status: 'completed' | 'failed' | 'skipped' | 'cancelled';
  output: unknown;
}

/**
 * The flow rules shared by the run worker and the dry run: which steps an ended step
 * lets run. An action step continues with `on_success` when it completed, and also when
 * it failed under `on_failure: continue` (the run treats the failure as recorded, not
 * fatal); a condition continues with `on_true` or `on_false` (a missing branch ends that
 * path); a parallel step starts every `next_steps` branch when it starts and continues
 * with `on_success` once every branch has ended.
 */
export function nextSteps(step: PlaybookStep, outcome: StepOutcome, onFailure: PlaybookDefinition['on_failure']): string[] {
  if (outcome.status === 'skipped' || outcome.status === 'cancelled') return [];
  if (step.type === 'condition') {
    const taken = (outcome.output as { result?: boolean } | null)?.result === true ? step.on_true : step.on_false;
    return taken ? [taken] : [];
  }
  if (outcome.status === 'failed' && onFailure === 'abort') return [];
  return step.on_success ? [step.on_success] : [];
}

/** Every step reachable from `starts` (a parallel step's branches), following every edge. */
export function reachable(steps: PlaybookStep[], starts: string[]): Set<string> {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const todo = [...starts];
  while (todo.length) {
    const id = todo.pop()!;
    if (seen.has(id)) continue;
    const step = byId.get(id);
    if (!step) continue;
    seen.add(id);
    todo.push(...edgesOf(step));
  }
  return seen;
}

export function edgesOf(step: PlaybookStep): string[] {
  const out: Array<string | null | undefined> =
    step.type === 'condition' ? [step.on_true, step.on_false] : step.type === 'parallel' ? [...step.next_steps, step.on_success] : [step.on_success];
  return out.filter((x): x is string => typeof x === 'string' && x.length > 0);
}
