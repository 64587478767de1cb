import type { PlaybookStep } from '../playbook-types.ts';

/**
 * The edges of a step graph: `next` (an action's on_success, a condition's on_true /
 * on_false), `branch` (a parallel's next_steps) and `join` (a parallel's on_success,
 * taken once every branch has ended).
 */
export type EdgeKind = 'next' | 'branch' | 'join';
export interface Edge {
  /** Index of the step the edge leaves. */
  from: number;
  to: string;
  kind: EdgeKind;
  /** Where the reference is written, e.g. `steps[2].on_success`, `steps[3].next_steps[1]`. */
  field: string;
}

type Loose = Record<string, unknown>;

/** Every reference a step makes, well-formed or not (the caller checks them). */
export function referencesOf(step: unknown, i: number): Array<{ field: string; kind: EdgeKind; value: unknown }> {
  if (step === null || typeof step !== 'object') return [];
  const s = step as Loose;
  const at = (key: string): string => `steps[${i}].${key}`;
  const refs: Array<{ field: string; kind: EdgeKind; value: unknown }> = [];
  const single = (key: string, kind: EdgeKind): void => {
    if (s[key] !== undefined && s[key] !== null) refs.push({ field: at(key), kind, value: s[key] });
  };
  if (s.type === 'action') single('on_success', 'next');
  if (s.type === 'condition') {
    single('on_true', 'next');
    single('on_false', 'next');
  }
  if (s.type === 'parallel') {
    if (Array.isArray(s.next_steps)) s.next_steps.forEach((v, k) => refs.push({ field: at(`next_steps[${k}]`), kind: 'branch', value: v }));
    single('on_success', 'join');
  }
  return refs;
}

/** Index of the first step with each id (duplicates are a validation problem, not an edge). */
export function indexById(steps: readonly unknown[]): Map<string, number> {
  const byId = new Map<string, number>();
  steps.forEach((s, i) => {
    const id = (s as Loose | null)?.id;
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, i);
  });
  return byId;
}

/** The edges whose target names a step, per step index. */
export function edgesOf(steps: readonly unknown[], byId = indexById(steps)): Edge[][] {
  return steps.map((step, i) =>
    referencesOf(step, i)
      .filter((r) => typeof r.value === 'string' && byId.has(r.value))
      .map((r) => ({ from: i, to: r.value as string, kind: r.kind, field: r.field })),
  );
}

/**
 * Indexes reachable from `start` (inclusive) over every edge, or with `overBranches:
 * false` along one flow only: a parallel counts as one unit and is left by its join.
 */
export function reachFrom(start: number, edges: Edge[][], byId: Map<string, number>, overBranches = true): Set<number> {
  const seen = new Set<number>([start]);
  const queue = [start];
  while (queue.length > 0) {
    for (const e of edges[queue.pop()!]!) {
      if (!overBranches && e.kind === 'branch') continue;
      const to = byId.get(e.to)!;
      if (!seen.has(to)) seen.add(to), queue.push(to);
    }
  }
  return seen;
}

/** True when a step ends a path: nothing follows it on at least one of its outcomes. */
export function endsAPath(step: PlaybookStep): boolean {
  if (step.type === 'condition') return !step.on_true || !step.on_false;
  return !step.on_success;
}
