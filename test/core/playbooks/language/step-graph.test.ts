import test from 'ava';
import { stepGraphProblems, stepsBefore } from '../../../../core/playbooks/language/step-graph.ts';
import type { PlaybookStep } from '../../../../core/playbooks/playbook-types.ts';

const act = (id: string, on_success: string | null = null): PlaybookStep => ({ id, name: id, type: 'action', action_ref: 'noop', parameters: {}, on_success });
const cond = (id: string, on_true: string | null, on_false: string | null): PlaybookStep => ({ id, name: id, type: 'condition', if: { 'event.kind': 'x' }, on_true, on_false });
const par = (id: string, next_steps: string[], on_success: string | null = null): PlaybookStep => ({ id, name: id, type: 'parallel', next_steps, on_success });
const problems = (steps: unknown[]) => stepGraphProblems(steps as PlaybookStep[]);

test('a valid graph with every step type has no problems', (t) => {
  t.deepEqual(problems([cond('c', 'p', 'alt'), par('p', ['a1', 'b1'], 'join'), act('a1', 'a2'), act('a2'), act('b1'), act('join'), act('alt', 'join')]), []);
  t.deepEqual(problems([act('only')]), []);
});

test('step ids: syntax and duplicates', (t) => {
  t.deepEqual(problems([act('s1', 's2'), act('s2'), act('s1')]), [{ field: 'steps[2].id', message: 'duplicate step id "s1" (steps[0] has it too)' }]);
  t.deepEqual(problems([act('bad id')]), [{ field: 'steps[0].id', message: 'must be 1 to 64 letters, digits, "_" or "-"' }]);
  t.is(problems([act('x'.repeat(65))])[0]!.field, 'steps[0].id');
  t.deepEqual(problems([{ ...act('s1'), type: 'loop' }]), [{ field: 'steps[0].type', message: 'must be one of action, condition, parallel' }]);
});

test('dangling references of each kind name the field and the missing id', (t) => {
  t.deepEqual(problems([act('s1', 'ghost')]), [{ field: 'steps[0].on_success', message: 'names no step: "ghost"' }]);
  t.deepEqual(problems([cond('c', 'nope', null)]), [{ field: 'steps[0].on_true', message: 'names no step: "nope"' }]);
  t.deepEqual(problems([cond('c', null, 'nope')]), [{ field: 'steps[0].on_false', message: 'names no step: "nope"' }]);
  t.deepEqual(problems([par('p', ['a', 'nope']), act('a')]), [{ field: 'steps[0].next_steps[1]', message: 'names no step: "nope"' }]);
  t.deepEqual(problems([par('p', ['a'], 'nope'), act('a')]), [{ field: 'steps[0].on_success', message: 'names no step: "nope"' }]);
  t.deepEqual(problems([act('s1', 7 as unknown as string)]), [{ field: 'steps[0].on_success', message: 'must be a step id (a string) or null' }]);
});

test('a cycle through condition and parallel steps is named with its path', (t) => {
  const steps = [act('start', 'check'), cond('check', 'fan', 'done'), par('fan', ['work'], 'again'), act('work'), act('again', 'check'), act('done')];
  t.deepEqual(problems(steps), [{ field: 'steps[4].on_success', message: 'closes a cycle: check → fan → again → check (steps may not loop)' }]);
  t.deepEqual(problems([act('self', 'self')]), [{ field: 'steps[0].on_success', message: 'closes a cycle: self → self (steps may not loop)' }]);
  t.regex(problems([cond('c', 'x', null), act('x', 'c')])[0]!.message, /closes a cycle: c → x → c/);
});

test('a step never reached from the first is named', (t) => {
  t.deepEqual(problems([act('s1', 's2'), act('s2'), act('island', 's2')]), [{ field: 'steps[2]', message: 'step "island" is never reached from the first step "s1"' }]);
});

test('parallel: a branch must not reach the join step', (t) => {
  t.deepEqual(problems([par('p', ['a', 'b'], 'join'), act('a', 'join'), act('b'), act('join')]), [
    { field: 'steps[0].next_steps[0]', message: 'branch "a" reaches the join step "join": a branch ends at a step with no next step, and the join runs after every branch has ended' },
  ]);
});

test('parallel: branches must not share steps', (t) => {
  t.deepEqual(problems([par('p', ['a', 'b']), act('a', 'shared'), act('b', 'shared'), act('shared')]), [
    { field: 'steps[0].next_steps[1]', message: 'branch "b" shares step(s) "shared" with branch "a": parallel branches must be separate' },
  ]);
});

test('parallel: a branch step is entered only from inside its branch', (t) => {
  const steps = [cond('c', 'p', 'a2'), par('p', ['a1', 'b1']), act('a1', 'a2'), act('a2'), act('b1')];
  t.deepEqual(problems(steps), [
    { field: 'steps[0].on_false', message: 'leads into step "a2", inside branch "a1" of parallel step "p": a branch step is reached only from inside its branch' },
  ]);
});

test('parallel: at least one branch, each named once', (t) => {
  t.deepEqual(problems([par('p', [])]), [{ field: 'steps[0].next_steps', message: 'a parallel step needs at least one branch' }]);
  t.deepEqual(problems([par('p', ['a', 'a']), act('a')]), [{ field: 'steps[0].next_steps[1]', message: 'names the branch "a" twice' }]);
});

test('nested parallels and conditions inside branches are accepted', (t) => {
  const steps = [par('outer', ['inner', 'c'], 'end'), par('inner', ['x', 'y'], 'z'), act('x'), act('y'), act('z'), cond('c', 'ct', null), act('ct'), act('end')];
  t.deepEqual(problems(steps), []);
});

test('at most 100 steps; none is refused too', (t) => {
  const many = Array.from({ length: 101 }, (_, i) => act(`s${i}`, i < 100 ? `s${i + 1}` : null));
  t.deepEqual(problems(many), [{ field: 'steps', message: 'has 101 steps; at most 100' }]);
  t.deepEqual(problems(many.slice(0, 100).map((s, i) => (i === 99 ? act('s99') : s))), []);
  t.deepEqual(problems([]), [{ field: 'steps', message: 'a playbook needs at least one step' }]);
});

const asObject = (m: Map<string, Set<string>>): Record<string, string[]> => Object.fromEntries([...m].map(([k, v]) => [k, [...v].sort()]));

test('stepsBefore: a line, and a diamond of condition branches keeps only what both paths share', (t) => {
  t.deepEqual(asObject(stepsBefore([act('a', 'b'), act('b', 'c'), act('c')])), { a: [], b: ['a'], c: ['a', 'b'] });
  const diamond = [act('start', 'check'), cond('check', 'yes', 'no'), act('yes', 'yes2'), act('yes2', 'join'), act('no', 'join'), act('join', 'end'), act('end')];
  t.deepEqual(asObject(stepsBefore(diamond)), {
    start: [],
    check: ['start'],
    yes: ['check', 'start'],
    yes2: ['check', 'start', 'yes'],
    no: ['check', 'start'],
    join: ['check', 'start'],
    end: ['check', 'join', 'start'],
  });
});

test('stepsBefore: the join after a parallel has every branch step that runs on all its paths', (t) => {
  const steps = [
    act('start', 'fan'),
    par('fan', ['a1', 'b1', 'c1'], 'join'),
    act('a1', 'a2'),
    act('a2'),
    act('b1'),
    cond('c1', 'c_yes', null), // c_yes may not run: only c1 is guaranteed
    act('c_yes'),
    act('join'),
  ];
  const before = asObject(stepsBefore(steps));
  t.deepEqual(before.join, ['a1', 'a2', 'b1', 'c1', 'fan', 'start']);
  t.deepEqual(before.a2, ['a1', 'fan', 'start']);
  t.deepEqual(before.b1, ['fan', 'start'], 'another branch is not before a branch step');
  t.deepEqual(before.c_yes, ['c1', 'fan', 'start']);
});

test('stepsBefore: a nested parallel inside a branch counts its own join', (t) => {
  const steps = [par('outer', ['inner', 'solo'], 'end'), par('inner', ['x', 'y'], 'z'), act('x'), act('y'), act('z'), act('solo'), act('end')];
  const before = asObject(stepsBefore(steps));
  t.deepEqual(before.z, ['inner', 'outer', 'x', 'y']);
  t.deepEqual(before.end, ['inner', 'outer', 'solo', 'x', 'y', 'z']);
});

test('stepsBefore answers on a cyclic or partly unreachable graph without looping', (t) => {
  const before = asObject(stepsBefore([act('a', 'b'), act('b', 'a'), act('island')]));
  t.deepEqual(before.a, []);
  t.deepEqual(before.island, []);
});
