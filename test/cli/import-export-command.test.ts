import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { rampart } from './_cli.ts';

const FIXTURE = new URL('../fixtures/imports/nuclei-v3-dvwa.jsonl', import.meta.url).pathname;

let app: TestApp;
let env: Record<string, string>;
let assetId: string;
let dir: string;
test.before(async () => {
  // syncMaxRows 10: a larger export runs in the background and the CLI waits for it.
  app = await createTestApp({ exports: { syncMaxRows: 10 } });
  await app.app.start();
  dir = mkdtempSync(join(tmpdir(), 'rampart-cli-'));
  const { token } = await app.tenant();
  env = { RAMPART_URL: app.server.info.uri, RAMPART_TOKEN: token };
  assetId = (await app.request('POST', '/api/assets', { token, payload: { name: 'dvwa.example', type: 'domain' } })).body.data.id;
});
test.after.always(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

test.serial('rampart import streams the file; again from standard input it creates nothing; a broken file exits 4 naming the line', async (t) => {
  const first = await rampart(['--json', 'import', 'nuclei', FIXTURE, '--asset', assetId], env);
  t.is(first.code, 0, first.stderr);
  t.like(JSON.parse(first.stdout), { format: 'nuclei', results: 27, created: 27 });
  const again = await rampart(['import', 'nuclei', '-', '--map-by-name', '--asset', assetId], env, readFileSync(FIXTURE, 'utf8'));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, /^27 results: 0 new findings, 27 seen again/m);
  const broken = await rampart(['import', 'nuclei', '-', '--asset', assetId], env, '{"template-id": "x", "info": {"severity": "low"}}\n{oops\n');
  t.is(broken.code, 4);
  t.regex(broken.stderr, /invalid_import_file/);
  t.regex(broken.stderr, /line 2: /);
  const usage = await rampart(['import', 'csv', FIXTURE], env);
  t.is(usage.code, 2);
});

test.serial('rampart export findings: a small export streams back, a large one is waited for and downloaded', async (t) => {
  const small = join(dir, 'critical.csv');
  const one = await rampart(['--json', 'export', 'findings', '--severity', 'critical', '--output', small], env);
  t.is(one.code, 0, one.stderr);
  t.like(JSON.parse(one.stdout), { format: 'csv', export_id: null });
  const rows = readFileSync(small, 'utf8').trim().split('\n');
  t.is(rows.length, 2, 'header and the one critical finding');
  t.regex(rows[1]!, /DVWA Default Login/);

  const all = join(dir, 'all.json');
  const bg = await rampart(['--json', 'export', 'findings', '--format', 'json', '--output', all, '--timeout', '120'], env);
  t.is(bg.code, 0, bg.stderr);
  t.regex(JSON.parse(bg.stdout).export_id, /^exp_/);
  t.is((JSON.parse(readFileSync(all, 'utf8')) as unknown[]).length, 27);

  const stdout = await rampart(['export', 'findings', '--severity', 'medium'], env);
  t.is(stdout.code, 0, stdout.stderr);
  t.regex(stdout.stdout, /^id,title,severity/);
  const refused = await rampart(['export', 'findings', '--severity', 'severe', '--output', join(dir, 'x.csv')], env);
  t.is(refused.code, 4);
});
