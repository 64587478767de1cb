import type { PlaybookStep } from '../playbook-types.ts';
import { edgesOf, endsAPath, indexById, reachFrom, type Edge } from './step-edges.ts';

const intersect = (sets: Set<string>[]): Set<string> =>
  sets.length === 0 ? new Set() : new Set([...sets[0]!].filter((x) => sets.every((s) => s.has(x))));

/**
 * For each step, the steps that have ended before it starts on every path of every run:
 * what a `{{ steps.<id>.output }}` in its parameters may rely on. A step reached along
 * several edges (condition branches rejoining) keeps only what all of them share; the
 * step after a parallel (its `on_success`) adds, for each branch, the steps that run on
 * every path through that branch. Meant for a graph stepGraphProblems accepts; on others
 * it still answers (steps in a cycle or never reached get an empty set).
 */
export function stepsBefore(steps: PlaybookStep[]): Map<string, Set<string>> {
  const byId = indexById(steps);
  const edges = edgesOf(steps, byId);
  const reached = steps.length > 0 ? reachFrom(0, edges, byId) : new Set<number>();
  const incoming = new Map<number, Edge[]>();
  for (const list of edges) {
    for (const e of list) {
      if (!reached.has(e.from)) continue;
      const to = byId.get(e.to)!;
      incoming.set(to, [...(incoming.get(to) ?? []), e]);
    }
  }
  const before = new Map<number, Set<string>>();
  const after = new Map<number, Set<string>>();
  const busy = new Set<string>(); // guards recursion on a cyclic graph

  const guarded = (key: string, compute: () => Set<string>): Set<string> => {
    if (busy.has(key)) return new Set();
    busy.add(key);
    try {
      return compute();
    } finally {
      busy.delete(key);
    }
  };

  const beforeOf = (i: number): Set<string> => {
    const known = before.get(i);
    if (known) return known;
    const computed =
      i === 0 || !reached.has(i)
        ? new Set<string>()
        : guarded(`b${i}`, () =>
            intersect((incoming.get(i) ?? []).map((e) => (e.kind === 'join' ? afterOf(e.from) : new Set([...beforeOf(e.from), steps[e.from]!.id])))),
          );
    before.set(i, computed);
    return computed;
  };

  // What has ended once step i's own flow is over: itself, and for a parallel every
  // branch's guaranteed steps.
  const afterOf = (i: number): Set<string> => {
    const known = after.get(i);
    if (known) return known;
    const computed = guarded(`a${i}`, () => {
      const out = new Set([...beforeOf(i), steps[i]!.id]);
      for (const e of edges[i]!.filter((x) => x.kind === 'branch')) {
        const branch = [...reachFrom(byId.get(e.to)!, edges, byId, false)]; // a nested parallel's own branches end inside it
        const ends = branch.filter((j) => endsAPath(steps[j]!));
        for (const id of intersect(ends.map(afterOf))) out.add(id);
      }
      return out;
    });
    after.set(i, computed);
    return computed;
  };

  const result = new Map<string, Set<string>>();
  steps.forEach((step, i) => {
    if (byId.get(step.id) === i) result.set(step.id, beforeOf(i));
  });
  return result;
}
