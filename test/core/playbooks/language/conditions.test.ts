import test from 'ava';
import { conditionPaths, evaluateConditions, MATCH_INPUT_CAP } from '../../../../core/playbooks/language/conditions.ts';
import type { ConditionSet } from '../../../../core/playbooks/playbook-types.ts';

const finding = {
  finding_id: 'fnd_1',
  title: 'SQL injection in /login',
  severity: 'high',
  cvss: 8.1,
  asset: { id: 'ast_1', name: 'web-1', type: 'domain', tags: ['prod', 'pci'] },
  scan_id: null,
  verified: true,
};

const holds = (set: unknown, data: unknown = finding): boolean => evaluateConditions(set as ConditionSet, data);

test('a plain value is strict equality on the field', (t) => {
  t.true(holds({ severity: 'high' }));
  t.false(holds({ severity: 'critical' }));
  t.true(holds({ 'asset.type': 'domain', cvss: 8.1, verified: true }));
  t.false(holds({ cvss: '8.1' }), 'a number is not equal to its string');
  t.true(holds({ scan_id: null }));
  t.false(holds({ missing: null }), 'an absent field is not null');
  t.false(holds({ 'asset.tags': 'prod' }), 'equality does not look inside arrays');
});

test('an empty set holds', (t) => {
  t.true(holds({}));
});

test('gte/lte/gt/lt rank severities: gte high holds for critical and high, not medium', (t) => {
  for (const [severity, expected] of [['critical', true], ['high', true], ['medium', false], ['low', false], ['info', false]] as const) {
    t.is(holds({ severity: { gte: 'high' } }, { severity }), expected, severity);
  }
  t.true(holds({ severity: { lte: 'medium' } }, { severity: 'low' }));
  t.false(holds({ severity: { lte: 'medium' } }, { severity: 'high' }));
  t.true(holds({ severity: { gt: 'medium' } }, { severity: 'high' }));
  t.false(holds({ severity: { gt: 'high' } }, { severity: 'high' }));
  t.true(holds({ severity: { lt: 'high' } }, { severity: 'info' }));
  t.false(holds({ severity: { lt: 'info' } }, { severity: 'info' }));
  t.false(holds({ title: { gte: 'low' } }), 'a string that is not a severity does not compare');
  t.false(holds({ cvss: { gte: 'low' } }), 'a number does not compare with a severity');
});

test('comparisons on numbers are by value, and a range is two operators', (t) => {
  t.true(holds({ cvss: { gte: 8.1 } }));
  t.true(holds({ cvss: { gt: 8 } }));
  t.false(holds({ cvss: { gt: 8.1 } }));
  t.true(holds({ cvss: { lte: 8.1, gte: 7 } }));
  t.false(holds({ cvss: { lt: 8.1 } }));
  t.false(holds({ severity: { gte: 3 } }), 'a severity name is not a number');
  t.false(holds({ nope: { lt: 100 } }), 'an absent field compares to nothing');
  t.false(holds({ cvss: { gte: 1 } }, { cvss: '9' }), 'a numeric string is not a number');
});

test('in: one of the values', (t) => {
  t.true(holds({ severity: { in: ['critical', 'high'] } }));
  t.false(holds({ severity: { in: ['low', 'info'] } }));
  t.true(holds({ cvss: { in: [8.1, 9] } }));
  t.false(holds({ missing: { in: [null] } }));
});

test('contains: an array holds the value, a string holds the text', (t) => {
  t.true(holds({ 'asset.tags': { contains: 'pci' } }));
  t.false(holds({ 'asset.tags': { contains: 'dev' } }));
  t.false(holds({ 'asset.tags': { contains: 'pc' } }), 'array items are compared whole');
  t.true(holds({ title: { contains: 'SQL' } }));
  t.false(holds({ title: { contains: 'sql' } }), 'case-sensitive');
  t.false(holds({ cvss: { contains: 8 } }));
  t.false(holds({ missing: { contains: 'x' } }));
});

test('matches: a regular expression searched in the string form', (t) => {
  t.true(holds({ title: { matches: '^SQL injection' } }));
  t.false(holds({ title: { matches: '^XSS' } }));
  t.true(holds({ cvss: { matches: '^8\\.' } }), 'numbers match on their text');
  t.false(holds({ asset: { matches: 'web' } }), 'objects never match');
  t.false(holds({ missing: { matches: '.?' } }), 'an absent field never matches');
  const long = 'a'.repeat(MATCH_INPUT_CAP) + 'NEEDLE';
  t.false(holds({ title: { matches: 'NEEDLE' } }, { title: long }), `only the first ${MATCH_INPUT_CAP} characters are searched`);
  t.true(holds({ title: { matches: 'NEEDLE' } }, { title: 'x'.repeat(MATCH_INPUT_CAP - 6) + 'NEEDLE' }));
});

test('exists: present and not null', (t) => {
  t.true(holds({ title: { exists: true } }));
  t.false(holds({ title: { exists: false } }));
  t.true(holds({ missing: { exists: false } }));
  t.false(holds({ missing: { exists: true } }));
  t.false(holds({ scan_id: { exists: true } }), 'null counts as absent');
  t.true(holds({ 'asset.tags.1': { exists: true } }), 'a digit segment indexes an array');
  t.false(holds({ 'asset.tags.2': { exists: true } }));
  t.false(holds({ 'title.constructor': { exists: true } }), 'no prototype members');
  t.false(holds(JSON.parse('{"__proto__": {"exists": true}}'), {}), 'nor the prototype itself');
});

test('not negates an operand, and holds for an absent field', (t) => {
  t.true(holds({ severity: { not: 'low' } }));
  t.false(holds({ severity: { not: 'high' } }));
  t.true(holds({ severity: { not: { in: ['low', 'info'] } } }));
  t.false(holds({ severity: { not: { gte: 'medium' } } }));
  t.true(holds({ missing: { not: 'x' } }));
});

test('several operators in one object must all hold', (t) => {
  t.true(holds({ cvss: { gte: 7, lt: 9, not: 8 } }));
  t.false(holds({ cvss: { gte: 7, lt: 8 } }));
});

test('entries are ANDed; any is OR and all is AND over nested sets', (t) => {
  t.true(holds({ severity: 'high', 'asset.type': 'domain' }));
  t.false(holds({ severity: 'high', 'asset.type': 'ip' }));
  t.true(holds({ any: [{ severity: 'critical' }, { 'asset.tags': { contains: 'pci' } }] }));
  t.false(holds({ any: [{ severity: 'critical' }, { 'asset.tags': { contains: 'dev' } }] }));
  t.true(holds({ all: [{ severity: { gte: 'medium' } }, { cvss: { gte: 8 } }] }));
  t.false(holds({ all: [{ severity: { gte: 'medium' } }, { cvss: { gte: 9 } }] }));
  t.true(holds({ severity: 'high', any: [{ all: [{ cvss: 1 }] }, { all: [{ verified: true }, { title: { matches: 'login$' } }] }] }));
  t.false(holds({ severity: 'low', any: [{ verified: true }] }), 'the plain entries still hold alongside any');
});

test('over a run context: step outputs, event data and parameters', (t) => {
  const context = {
    event: { kind: 'finding.new', data: finding },
    finding,
    asset: { id: 'ast_1', name: 'web-1', tags: ['prod'] },
    parameters: { threshold: 7 },
    steps: { lookup: { status: 'completed', output: { score: 80, verdict: 'malicious' } } },
  };
  t.true(holds({ 'steps.lookup.output.verdict': 'malicious', 'event.data.cvss': { gte: 7 }, 'asset.tags': { contains: 'prod' } }, context));
  t.true(holds({ 'steps.lookup.status': 'completed', 'parameters.threshold': { lt: 10 } }, context));
  t.true(holds({ 'steps.other.status': { exists: false } }, context), 'a step that did not run is absent');
  t.false(holds({ 'steps.other.status': 'completed' }, context));
});

test('conditionPaths lists every tested path, inside any/all too', (t) => {
  t.deepEqual(conditionPaths({ 'steps.a.status': 'completed', any: [{ 'finding.severity': 'high' }, { all: [{ 'steps.b.output.x': 1 }] }] }), [
    'steps.a.status',
    'finding.severity',
    'steps.b.output.x',
  ]);
  t.deepEqual(conditionPaths('nope'), []);
});
