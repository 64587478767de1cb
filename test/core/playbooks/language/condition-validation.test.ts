import test from 'ava';
import { conditionProblems } from '../../../../core/playbooks/language/conditions.ts';

const onEvent = (set: unknown) => conditionProblems(set, { paths: 'event-data', field: 'trigger.conditions' });
const onContext = (set: unknown) => conditionProblems(set, { paths: 'context', field: 'steps[2].if' });

test('valid sets have no problems', (t) => {
  t.deepEqual(onEvent({}), []);
  t.deepEqual(
    onEvent({
      severity: { gte: 'high' },
      cvss: { gt: 7.5, lte: 10 },
      'asset.type': { in: ['domain', 'ip'] },
      'asset.tags': { contains: 'prod' },
      title: { matches: '^(SQL|XSS) ' },
      scan_id: { exists: true },
      verified: true,
      note: null,
      status: { not: { in: ['resolved'] } },
      any: [{ severity: 'critical' }, { all: [{ cvss: 9 }] }],
    }),
    [],
  );
  t.deepEqual(onContext({ 'steps.s1.output.code': 0, 'event.data.severity': 'high', 'parameters.force': true, 'finding.title': { exists: true } }), []);
});

test('an unknown operator is named with its path and the operators', (t) => {
  t.deepEqual(onEvent({ severity: { greater: 'high' } }), [
    { field: 'trigger.conditions.severity', message: 'unknown operator "greater" on "severity" (operators: in, gte, lte, gt, lt, contains, matches, exists, not)' },
  ]);
  t.regex(onEvent({ 'asset.type': { not: { equals: 'ip' } } })[0]!.message, /unknown operator "equals" on "asset\.type" inside "not"/);
});

test('comparisons refuse booleans and non-severity strings', (t) => {
  t.deepEqual(onEvent({ severity: { gte: true } }), [
    { field: 'trigger.conditions.severity', message: '"gte" on "severity" compares numbers or severities (critical, high, medium, low, info), not a boolean' },
  ]);
  t.regex(onEvent({ cvss: { lt: 'ten' } })[0]!.message, /"lt" on "cvss" compares numbers or severities .*not the string "ten"/);
  t.regex(onEvent({ cvss: { gt: null } })[0]!.message, /"gt" on "cvss" .*not null/);
  t.regex(onEvent({ cvss: { lte: [1] } })[0]!.message, /"lte" on "cvss" .*not an array/);
});

test('in: an array of scalars, never empty', (t) => {
  t.deepEqual(onEvent({ severity: { in: [] } }), [
    { field: 'trigger.conditions.severity', message: '"in" on "severity" needs at least one value (an empty list never holds)' },
  ]);
  t.regex(onEvent({ severity: { in: 'high' } })[0]!.message, /"in" on "severity" takes an array of values, not a string/);
  t.regex(onEvent({ severity: { in: ['high', { x: 1 }] } })[0]!.message, /"in" on "severity": value 1 is an object/);
  t.regex(onEvent({ severity: { in: Array(1001).fill('x') } })[0]!.message, /more than 1000 values/);
});

test('other operand types: contains, matches, exists, plain values', (t) => {
  t.regex(onEvent({ 'asset.tags': { contains: ['a'] } })[0]!.message, /"contains" on "asset\.tags" takes one string.*not an array/);
  t.regex(onEvent({ title: { matches: 5 } })[0]!.message, /"matches" on "title" takes a regular expression as a string, not a number/);
  t.regex(onEvent({ title: { exists: 'yes' } })[0]!.message, /"exists" on "title" takes true or false, not a string/);
  t.regex(onEvent({ severity: ['high', 'critical'] })[0]!.message, /a plain value on "severity" must be a string.*use \{"in": \[\.\.\.\]\}/);
  t.regex(onEvent({ severity: {} })[0]!.message, /an empty operator object on "severity"/);
  t.regex(onEvent({ cvss: { not: { gte: false } } })[0]!.message, /"gte" on "cvss" inside "not" compares numbers/);
});

test('matches refuses patterns that do not compile or could backtrack catastrophically', (t) => {
  const [nested] = onEvent({ title: { matches: '(a+)+$' } });
  t.is(nested!.field, 'trigger.conditions.title');
  t.regex(nested!.message, /^"matches" on "title": the pattern is refused: nested repetition/);
  t.regex(onEvent({ title: { matches: '(' } })[0]!.message, /the pattern does not compile/);
  t.regex(onEvent({ title: { matches: 'x(?=y)' } })[0]!.message, /lookarounds/);
  t.regex(onEvent({ title: { matches: 'a'.repeat(600) } })[0]!.message, /longer than 512/);
});

test('any / all take non-empty arrays of sets, and problems inside name their position', (t) => {
  t.deepEqual(onEvent({ any: [] }), [{ field: 'trigger.conditions.any', message: '"any" needs at least one condition set' }]);
  t.regex(onEvent({ all: { severity: 'high' } })[0]!.message, /"all" takes an array of condition sets, not an object/);
  t.deepEqual(onEvent({ any: [{ severity: 'high' }, { all: [{ cvss: { gte: 'x' } }] }] }).map((p) => p.field), ['trigger.conditions.any[1].all[0].cvss']);
  t.regex(onEvent({ any: ['high'] })[0]!.message, /must be an object of field paths to conditions, not a string/);
  let deep: Record<string, unknown> = { severity: 'high' };
  for (let i = 0; i < 10; i++) deep = { any: [deep] };
  t.regex(onEvent(deep)[0]!.message, /deeper than 8 levels/);
});

test('the set itself must be an object; paths must be dotted names', (t) => {
  t.deepEqual(onEvent(['severity']), [{ field: 'trigger.conditions', message: 'must be an object of field paths to conditions, not an array' }]);
  t.regex(onEvent({ 'asset..type': 'x' })[0]!.message, /the field path "asset\.\.type" is not a dotted path/);
  t.regex(onEvent({ 'asset type': 'x' })[0]!.message, /is not a dotted path/);
  t.regex(onEvent(Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, 1])))[0]!.message, /more than 200 conditions/);
});

test('context paths start with a context root and name a step status or output', (t) => {
  t.deepEqual(onContext({ severity: 'high' }), [
    { field: 'steps[2].if.severity', message: 'the field path "severity" starts with the unknown root "severity" (a path starts with event, finding, asset, parameters, steps)' },
  ]);
  t.regex(onContext({ 'steps.s1.result': 0 })[0]!.message, /"steps\.s1\.result": a step has only "status" and "output"/);
  t.regex(onContext({ 'event.severity': 'high' })[0]!.message, /the event has only "kind" and "data"/);
  t.regex(onContext({ parameters: 1 })[0]!.message, /names all parameters/);
  t.deepEqual(onContext({}), [{ field: 'steps[2].if', message: 'a condition step needs at least one condition' }]);
});

test('field defaults to the bare path without a prefix', (t) => {
  t.deepEqual(conditionProblems({ severity: { in: [] } }, { paths: 'event-data' }).map((p) => p.field), ['severity']);
});
