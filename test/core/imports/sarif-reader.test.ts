import test from 'ava';
import type { ImportedResult, ReadResult } from '../../../core/imports/import-result.ts';
import { readSarif } from '../../../core/imports/sarif-reader.ts';
import { fixtureText, readAll } from './_read.ts';

const imported = (rs: ReadResult[]) => rs.filter((r): r is ImportedResult => !('skipped' in r));
const driver = { name: 'demo', version: '1.0', rules: [{ id: 'R1', shortDescription: { text: 'Rule one' }, messageStrings: { m: { text: 'Value {0} reaches {1}.' } }, properties: { tags: ['security', 'external/cwe/cwe-079'] } }] };
const sarif = (results: unknown[], run: Record<string, unknown> = {}) => JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver }, results, ...run }] });
const at = (uri: string, line: number) => [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: line } } }];

test('kinds, baselines and suppressions: passes and absent results are skipped, accepted suppressions arrive as accepted_risk', async (t) => {
  const { results } = await readAll(readSarif, sarif([
    { ruleId: 'R1', message: { text: 'a' }, locations: at('a.c', 1) },
    { ruleId: 'R1', kind: 'pass', message: { text: 'b' } },
    { ruleId: 'R1', kind: 'notApplicable', message: { text: 'c' } },
    { ruleId: 'R1', baselineState: 'absent', message: { text: 'd' }, locations: at('a.c', 2) },
    { ruleId: 'R1', message: { text: 'e' }, locations: at('a.c', 3), suppressions: [{ kind: 'inSource' }] },
    { ruleId: 'R1', message: { text: 'f' }, locations: at('a.c', 4), suppressions: [{ kind: 'external', status: 'rejected' }] },
    { ruleId: 'R1', kind: 'review', message: { text: 'g' }, locations: at('a.c', 5) },
  ]));
  t.deepEqual(results.filter((r) => 'skipped' in r).map((r) => (r as { skipped: string }).skipped), ['kind pass', 'kind notApplicable', 'baselineState absent']);
  t.deepEqual(imported(results).map((r) => r.initialStatus), ['open', 'accepted_risk', 'open', 'open']);
  t.deepEqual(imported(results).map((r) => r.score.severity), ['medium', 'medium', 'medium', 'info'], 'warning by default; none for a review result');
});

test('message strings, rule tags, fingerprints as identity, repository as target, invocation time', async (t) => {
  const { results } = await readAll(readSarif, sarif([
    { ruleId: 'R1', ruleIndex: 0, level: 'error', message: { id: 'm', arguments: ['x', 'sink()'] }, locations: at('src/a.js', 10), partialFingerprints: { primaryLocationLineHash: 'abc:1' } },
    { ruleId: 'R1', level: 'note', message: { text: 'other' }, locations: at('src/a.js', 99), partialFingerprints: { primaryLocationLineHash: 'abc:1' } },
  ], { versionControlProvenance: [{ repositoryUri: 'https://git.example/team/app' }], invocations: [{ executionSuccessful: true, endTimeUtc: '2026-03-01T10:00:00Z' }] }));
  const [a, b] = imported(results);
  t.like(a, { title: 'Rule one', description: 'Value x reaches sink().', checkId: 'sarif:demo:R1', observedAt: Date.parse('2026-03-01T10:00:00Z') });
  t.deepEqual(a!.targets, ['https://git.example/team/app', 'git.example']);
  t.deepEqual(a!.tags, ['security', 'external/cwe/cwe-079', 'CWE-79']);
  t.is(a!.location, b!.location, 'same file and fingerprint: the same finding, wherever the line moved');
});

test('a schema violation names the JSON path of the offending value', async (t) => {
  const error = await t.throwsAsync(readAll(readSarif, sarif([{ ruleId: 'R1', message: { text: 'a' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'a.c' }, region: { startLine: 0 } } }] }])));
  t.is((error as { where?: string }).where, '$.runs[0].results[0].locations[0].physicalLocation.region.startLine');
});

test('Semgrep writes results before its rules: the reader asks for a second pass with the whole document', async (t) => {
  const { results, passes } = await readAll(readSarif, fixtureText('semgrep-1.69.0.sarif'));
  t.is(passes, 2);
  t.is(results.length, 77);
  t.true(imported(results).every((r) => !r.title.startsWith('vulnerability-management-registry') && r.checkId.startsWith('sarif:Semgrep OSS:')));
  t.deepEqual([...new Set(imported(results).map((r) => r.score.basis))], ['severity'], 'security-severity words set the band');
});

test('dependency-check spells the vector out metric by metric; Trivy names it; Grype gives a score', async (t) => {
  const dc = imported((await readAll(readSarif, fixtureText('dependency-check-6.1.2.sarif'))).results);
  const jquery = dc.find((r) => r.checkId.endsWith('CVE-2012-6708'))!;
  t.deepEqual(jquery.score, { severity: 'medium', cvss: 6.1, cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', basis: 'vector' });
  t.true(jquery.title.startsWith('CVE-2012-6708 - jQuery before 1.9.0'), 'no rules in the run: the message\'s first line');
  const trivy = imported((await readAll(readSarif, fixtureText('trivy-alpine-310.sarif'))).results);
  t.deepEqual([...new Set(trivy.map((r) => `${r.score.basis} ${r.score.cvss}`))], ['vector 5.3']);
  t.is(new Set(trivy.map((r) => r.location)).size, 4, 'one image, four packages: four locations');
  const grype = imported((await readAll(readSarif, fixtureText('grype-0.34.7.sarif'))).results);
  t.true(grype.every((r) => r.score.basis === 'score'));
});
