import test from 'ava';
import { findingSummary, riskScore, type OpenFindingGroup } from '../../../core/findings/risk-score.ts';

const g = (severity: OpenFindingGroup['severity'], count: number, cvss: number): OpenFindingGroup => ({ severity, count, cvssSum: count * cvss });

test('documented examples of the formula', (t) => {
  t.is(riskScore([]), 0);
  t.is(riskScore([g('critical', 1, 9.8)]), 62);
  t.is(riskScore([g('critical', 2, 9.8)]), 86);
  t.is(riskScore([g('critical', 3, 9.8)]), 95);
  t.is(riskScore([g('high', 1, 7.5)]), 31);
  t.is(riskScore([g('medium', 1, 5.0)]), 10);
  t.is(riskScore([g('low', 10, 3.0)]), 14);
  t.is(riskScore([g('info', 500, 0)]), 0);
});

test('saturates at 100 and grows with every finding and with CVSS', (t) => {
  t.is(riskScore([g('critical', 1000, 10)]), 100);
  let last = 0;
  for (let n = 1; n <= 12; n++) {
    const score = riskScore([g('high', n, 7.5)]);
    t.true(score >= last && score <= 100);
    last = score;
  }
  t.true(riskScore([g('high', 1, 8.9)]) > riskScore([g('high', 1, 7.0)]));
  t.true(riskScore([g('critical', 1, 9.0)]) > riskScore([g('high', 1, 8.9)]));
});

test('finding summary counts by severity with zeros', (t) => {
  t.deepEqual(findingSummary([g('high', 2, 7), g('info', 1, 0)]), { critical: 0, high: 2, medium: 0, low: 0, info: 1 });
});
