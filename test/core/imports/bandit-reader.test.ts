import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { readBandit } from '../../../core/imports/bandit-reader.ts';
import { sniffFormat } from '../../../core/imports/format-sniff.ts';
import { ImportFileError } from '../../../core/imports/import-file-error.ts';
import type { ImportedResult } from '../../../core/imports/import-result.ts';
import { readAll } from './_read.ts';
import { BANDIT_SAMPLE, banditJson, withTool } from './_tools.ts';

const withBandit = withTool('bandit', ['--version'], 'bandit JSON reader tests');

let dir: string;
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-bandit-'));
  cpSync(BANDIT_SAMPLE, dir, { recursive: true });
});
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

withBandit('bandit\'s report of the sample: one result per issue, its severity at the floor of the band, the flagged line as evidence', async (t) => {
  const json = await banditJson(dir);
  t.is(sniffFormat(json), 'bandit');
  const { results, passes } = await readAll(readBandit, json, 100);
  t.is(passes, 1, 'bandit writes generated_at before results');
  const byTest = new Map((results as ImportedResult[]).map((r) => [r.checkId, r]));
  t.deepEqual([...byTest.keys()].sort(), ['bandit:B301', 'bandit:B303', 'bandit:B403', 'bandit:B404', 'bandit:B506', 'bandit:B602']);
  const shell = byTest.get('bandit:B602')!;
  t.like(shell, { title: 'B602 subprocess_popen_with_shell_equals_true: subprocess call with shell=True identified, security issue.', targets: [], initialStatus: 'open' });
  t.deepEqual(shell.score, { severity: 'high', cvss: 7, cvssVector: '', basis: 'severity' });
  t.like(shell.evidence, { file: './app.py', line: 10, snippet: '    return subprocess.call(cmd, shell=True)', test_id: 'B602', tool: 'bandit', tool_severity: 'HIGH', confidence: 'HIGH' });
  t.true(shell.references.some((u) => u.startsWith('https://bandit.readthedocs.io/')));
  t.like(byTest.get('bandit:B303')!.score, { severity: 'medium', cvss: 4 });
  t.like(byTest.get('bandit:B403')!.score, { severity: 'low', cvss: 0.1 });
  const generated = JSON.parse(json).generated_at as string;
  t.is(shell.observedAt, Date.parse(generated.endsWith('Z') ? generated : `${generated}Z`));
});

withBandit('lines added above an issue keep its identity; a new issue is a new one', async (t) => {
  const before = (await readAll(readBandit, await banditJson(dir))).results as ImportedResult[];
  const edited = mkdtempSync(join(tmpdir(), 'rampart-bandit-'));
  try {
    const source = readFileSync(join(dir, 'app.py'), 'utf8');
    writeFileSync(join(edited, 'app.py'), `# a comment\n# and another\n${source}\n\ndef again(cmd):\n    return subprocess.call(cmd + " -v", shell=True)\n`);
    const after = (await readAll(readBandit, await banditJson(edited))).results as ImportedResult[];
    const keys = (rs: ImportedResult[]) => new Set(rs.map((r) => `${r.checkId} ${r.location}`));
    t.is(after.length, before.length + 1);
    t.true([...keys(before)].every((k) => keys(after).has(k)));
    t.truthy(after.find((r) => r.checkId === 'bandit:B602' && r.evidence.line === 12), 'the moved issue has its new line');
  } finally {
    rmSync(edited, { recursive: true, force: true });
  }
});

withBandit('a report cut short, or an issue without its severity, is refused where it broke', async (t) => {
  const json = await banditJson(dir);
  const cut = json.slice(0, json.indexOf('"test_id": "B602"'));
  const truncated = await t.throwsAsync(readAll(readBandit, cut), { instanceOf: ImportFileError });
  t.regex(truncated!.where!, /^line \d+, column \d+$/);
  const doc = JSON.parse(json);
  delete doc.results[2].issue_severity;
  const missing = await t.throwsAsync(readAll(readBandit, JSON.stringify(doc, null, 2)), { instanceOf: ImportFileError });
  t.is(missing!.where, '$.results[2].issue_severity');
  const noResults = await t.throwsAsync(readAll(readBandit, '{"errors": [], "metrics": {}}'), { instanceOf: ImportFileError });
  t.is(noResults!.where, '$.results');
});
