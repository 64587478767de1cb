import { readFileSync } from 'node:fs';
import test from 'ava';
import { InputError } from '../../../core/errors.ts';
import { parseCvss31, roundup, severityOf } from '../../../core/findings/cvss.ts';

interface Reference {
  vector: string;
  baseScore: number;
  severity: string;
}

// All 2592 base vectors with FIRST-conformant scores (copy of the shared reference data).
const referenceFile = new URL('../../fixtures/cvss/cvss31-all-base-vectors.json', import.meta.url);
const reference = JSON.parse(readFileSync(referenceFile, 'utf8')) as Reference[];

test('every reference base vector scores and bands like the reference', (t) => {
  t.is(reference.length, 2592);
  const mismatches: string[] = [];
  for (const ref of reference) {
    const result = parseCvss31(ref.vector);
    const severity = ref.severity === 'None' ? 'info' : ref.severity.toLowerCase();
    if (result.score !== ref.baseScore || result.severity !== severity || result.vector !== ref.vector) {
      mismatches.push(`${ref.vector}: ${result.score}/${result.severity}, expected ${ref.baseScore}/${severity}`);
    }
  }
  t.deepEqual(mismatches, []);
});

test('FIRST example vectors', (t) => {
  t.is(parseCvss31('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H').score, 9.8);
  t.is(parseCvss31('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N').score, 6.1);
  t.is(parseCvss31('CVSS:3.1/AV:L/AC:L/PR:H/UI:N/S:U/C:L/I:L/A:L').score, 4.2);
  t.is(parseCvss31('CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H').severity, 'critical');
});

test('Appendix A roundup avoids float artefacts', (t) => {
  t.is(roundup(4.000000000000001), 4.0);
  t.is(roundup(4.02), 4.1);
  t.is(roundup(10), 10);
});

test('severity bands follow the spec table', (t) => {
  t.is(severityOf(0), 'info');
  t.is(severityOf(0.1), 'low');
  t.is(severityOf(3.9), 'low');
  t.is(severityOf(4.0), 'medium');
  t.is(severityOf(6.9), 'medium');
  t.is(severityOf(7.0), 'high');
  t.is(severityOf(8.9), 'high');
  t.is(severityOf(9.0), 'critical');
  t.is(severityOf(10), 'critical');
});

test('any base order is accepted and canonicalised', (t) => {
  const result = parseCvss31('CVSS:3.1/A:H/I:H/C:H/S:U/UI:N/PR:N/AC:L/AV:N');
  t.is(result.vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  t.is(result.score, 9.8);
  t.deepEqual(result.metrics, { A: 'H', I: 'H', C: 'H', S: 'U', UI: 'N', PR: 'N', AC: 'L', AV: 'N' });
});

test('temporal and environmental metrics are accepted but only the base is scored', (t) => {
  const result = parseCvss31('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/MAV:L/E:U/RL:O/RC:C/CR:H');
  t.is(result.score, 9.8);
  t.is(result.vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:C/CR:H/MAV:L');
  t.is(result.metrics.E, 'U');
});

const malformed: Array<[string, RegExp]> = [
  ['', /must start with/],
  ['AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /must start with/],
  ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /must start with/],
  ['cvss:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /must start with/],
  [' CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /must start with/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H ', /malformed component "A:H "/],
  ['CVSS:3.1/', /malformed component ""/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/', /malformed component ""/],
  ['CVSS:3.1/AV:N//AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /malformed component ""/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', /missing base metric A$/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N', /missing base metrics S, C, I, A/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/A:L', /"A" appears more than once/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/E:U', /"E" appears more than once/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/XX:Y', /unknown metric "XX"/],
  ['CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /value "X" is not allowed for AV/],
  ['CVSS:3.1/AV:n/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /malformed component "AV:n"/],
  ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:HH', /malformed component "A:HH"/],
  ['CVSS:3.1/AV=N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /malformed component "AV=N"/],
];

for (const [vector, message] of malformed) {
  test(`rejects ${JSON.stringify(vector)}`, (t) => {
    const err = t.throws(() => parseCvss31(vector), { instanceOf: InputError });
    t.is(err?.code, 'invalid_cvss_vector');
    t.is(err?.statusCode, 400);
    t.regex(err?.message ?? '', message);
  });
}

test('rejects a non-string', (t) => {
  t.throws(() => parseCvss31(undefined as unknown as string), { instanceOf: InputError });
});
