import test from 'ava';
import { scoreImport, severityWord } from '../../../core/imports/import-score.ts';

test('a vector wins and is scored like a scanned finding\'s; CVSS 3.0 vectors are scored as 3.1', (t) => {
  t.deepEqual(scoreImport({ vectors: ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'], score: 2, severity: 'low' }), { severity: 'critical', cvss: 9.8, cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', basis: 'vector' });
  t.is(scoreImport({ vectors: ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'], severity: 'info' }).cvss, 0);
});

test('a malformed or other-version vector falls through to the score, then the severity at its floor', (t) => {
  t.deepEqual(scoreImport({ vectors: ['CVSS:3.1/AV:N', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N', 42], score: '7.45' }), { severity: 'high', cvss: 7.5, cvssVector: '', basis: 'score' });
  t.deepEqual(scoreImport({ vectors: [], score: 11, severity: 'medium' }), { severity: 'medium', cvss: 4, cvssVector: '', basis: 'severity' });
  t.deepEqual(scoreImport({ vectors: [], severity: 'critical' }), { severity: 'critical', cvss: 9, cvssVector: '', basis: 'severity' });
  t.deepEqual(scoreImport({ vectors: [], severity: 'low' }), { severity: 'low', cvss: 0.1, cvssVector: '', basis: 'severity' });
  t.is(scoreImport({ vectors: [] }).severity, 'info');
});

test('tool severity words', (t) => {
  t.deepEqual(['CRITICAL', 'High', 'Moderate', 'informational', 'unknown', 'none', 'severe', 3].map(severityWord), ['critical', 'high', 'medium', 'info', 'info', 'info', null, null]);
});
