import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { sniffFormat } from '../../../core/imports/format-sniff.ts';
import { readGitleaks } from '../../../core/imports/gitleaks-reader.ts';
import { ImportFileError } from '../../../core/imports/import-file-error.ts';
import type { ImportedResult } from '../../../core/imports/import-result.ts';
import { readAll } from './_read.ts';
import { gitleaksJson, withTool, writeLeakySample } from './_tools.ts';

const withGitleaks = withTool('gitleaks', ['version'], 'gitleaks JSON reader tests', '.ci/run unpacks a WebAssembly build into RAMPART_GITLEAKS');

let dir: string;
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-gitleaks-'));
});
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

withGitleaks('gitleaks\' report of the sample: one result per leak, high, evidence naming file, line and rule, never the value', async (t) => {
  const secrets = writeLeakySample(dir);
  const json = await gitleaksJson(dir);
  t.true(secrets.every((s) => json.includes(s)), 'gitleaks wrote the values (unredacted, its default)');
  t.is(sniffFormat(json), 'gitleaks');
  const { results } = await readAll(readGitleaks, json, 50);
  const leaks = results as ImportedResult[];
  t.true(leaks.length >= 3, JSON.stringify(leaks.map((l) => l.checkId)));
  const aws = leaks.find((l) => l.checkId === 'gitleaks:aws-access-token')!;
  t.like(aws, { title: 'Secret in settings.py:4 (aws-access-token)', location: 'settings.py:aws-access-token:4', targets: [] });
  t.deepEqual(aws.score, { severity: 'high', cvss: 7, cvssVector: '', basis: 'severity' });
  t.like(aws.evidence, { file: 'settings.py', line: 4, rule_id: 'aws-access-token', fingerprint: 'settings.py:aws-access-token:4', tool: 'gitleaks' });
  t.truthy(leaks.find((l) => l.checkId === 'gitleaks:github-pat'));
  const stored = JSON.stringify(leaks);
  for (const s of secrets) t.false(stored.includes(s), 'the value is in no field of any result');
});

test('a broken or cut report is refused at the place, without quoting the file', async (t) => {
  const secret = 'AKIAQWERTYUIOPASDFGH';
  const leak = { RuleID: 'aws-access-token', Description: 'AWS', StartLine: 2, EndLine: 2, StartColumn: 1, EndColumn: 20, Match: secret, Secret: secret, File: 'a.py', Fingerprint: 'a.py:aws-access-token:2' };
  const good = JSON.stringify([leak, leak]);
  const cut = await t.throwsAsync(readAll(readGitleaks, good.slice(0, good.length - 40)), { instanceOf: ImportFileError });
  t.regex(cut!.where!, /^line 1, column \d+$/);
  const badLine = await t.throwsAsync(readAll(readGitleaks, JSON.stringify([leak, { ...leak, StartLine: secret }])), { instanceOf: ImportFileError });
  t.is(badLine!.where, '$[1].StartLine');
  for (const err of [cut!, badLine!]) t.false(err.message.includes(secret));
  const notArray = await t.throwsAsync(readAll(readGitleaks, JSON.stringify({ leaks: [leak] })), { instanceOf: ImportFileError });
  t.is(notArray!.where, '$');
});
