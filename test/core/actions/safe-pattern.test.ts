import test from 'ava';
import { patternProblem } from '../../../core/actions/safe-pattern.ts';

test('catastrophic patterns are refused, each with its reason', (t) => {
  const cases: Array<[string, RegExp]> = [
    ['(a+)+$', /nested repetition/],
    ['(a|a)*', /alternation/],
    ['(\\w+\\s?)*$', /nested repetition/],
    ['^(a*)*b$', /nested repetition/],
    ['(.*x){9}', /nested repetition/],
    ['(ab|a)*c', /alternation/],
    ['(x+x+)+y', /nested repetition/],
    ['^.*.*$', /unbounded repetitions/],
    ['\\w+\\s?\\w+$', /unbounded repetitions/],
    ['(a)\\1', /backreferences/],
    ['(?<n>a)\\k<n>', /backreferences/],
    ['foo(?=bar)', /lookarounds/],
    ['(?<!x)y', /lookarounds/],
    ['(', /does not compile/],
    ['a'.repeat(513), /longer than 512/],
  ];
  for (const [pattern, reason] of cases) t.regex(patternProblem(pattern) ?? 'accepted', reason, pattern);
});

test('ordinary patterns pass', (t) => {
  for (const pattern of [
    '^\\d{1,3}(\\.\\d{1,3}){3}$',
    '[a-z0-9_-]+',
    '(cat|dog)+',
    '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$',
    '\\d+\\.\\d+',
    '[A-Z]{2}-\\d{4}',
    '(?:foo|bar)?baz',
    '^(?<year>\\d{4})-\\d{2}$',
    '.*',
  ]) {
    t.is(patternProblem(pattern), null, pattern);
  }
});
