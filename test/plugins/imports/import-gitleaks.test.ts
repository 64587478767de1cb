import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { listTables } from '../../reliability/fuzz/table-counts.ts';
import { gitleaksJson, withTool, writeLeakySample } from '../../core/imports/_tools.ts';

// gitleaks' own report, produced here (.ci/run provides gitleaks: RAMPART_GITLEAKS).
const withGitleaks = withTool('gitleaks', ['version'], 'gitleaks import API tests', '.ci/run unpacks a WebAssembly build into RAMPART_GITLEAKS');

let app: TestApp;
let dir: string;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-gitleaks-api-'));
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every text of every row of every table (blobs read as UTF-8): where a leaked value must not be. */
async function everythingStored(): Promise<string> {
  const engine = process.env.DATABASE_URL?.startsWith('mysql') ? 'mysql' : 'sqlite';
  const parts: string[] = [];
  for (const table of await listTables(app.ctx.db, engine)) {
    for (const row of (await app.ctx.db(table).select('*')) as Array<Record<string, unknown>>) {
      for (const v of Object.values(row)) parts.push(Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : JSON.stringify(v));
    }
  }
  return parts.join('\n');
}

const upload = (token: string, query: string, body: string) =>
  app.request('POST', `/api/findings/import?${query}`, { token, payload: body, headers: { 'content-type': 'application/json' } });

withGitleaks('gitleaks JSON: detected and imported with file, line and rule, the secret in no response and nowhere in the database', async (t) => {
  const secrets = writeLeakySample(dir);
  const json = await gitleaksJson(dir);
  t.true(secrets.every((s) => json.includes(s)), 'the report holds the values');
  const leaks = (JSON.parse(json) as unknown[]).length;
  const tenant = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: 'leaky-repo.example', type: 'domain' } })).body.data;

  const first = await upload(tenant.token, `asset_id=${asset.id}`, json);
  t.is(first.statusCode, 200, first.raw);
  t.like(first.body.data, { format: 'gitleaks', format_detected: true, results: leaks, created: leaks });
  const list = await app.request('GET', `/api/findings?asset_id=${asset.id}&per_page=100`, { token: tenant.token });
  t.is(list.body.data.length, leaks);
  const aws = list.body.data.find((f: { title: string }) => f.title === 'Secret in settings.py:4 (aws-access-token)');
  t.like(aws, { severity: 'high', cvss: 7 });
  const detail = await app.request('GET', `/api/findings/${aws.id}`, { token: tenant.token });
  t.like(detail.body.data.evidence, { file: 'settings.py', line: 4, rule_id: 'aws-access-token', tool: 'gitleaks' });

  const again = await upload(tenant.token, `format=gitleaks&asset_id=${asset.id}`, json);
  t.like(again.body.data, { created: 0, seen_again: leaks });
  const cut = await upload(tenant.token, `asset_id=${asset.id}`, json.slice(0, json.indexOf('"Secret"') + 20));
  t.is(cut.statusCode, 400);
  t.is(cut.body.error.code, 'invalid_import_file');
  t.regex(cut.body.error.details[0].field, /^line \d+, column \d+$/);

  const stored = await everythingStored();
  t.true(stored.includes('settings.py:aws-access-token:4'), 'the scan reads the findings\' evidence');
  const seen = [first.raw, list.raw, detail.raw, again.raw, cut.raw, stored].join('\n');
  for (const s of secrets) t.false(seen.includes(s), 'the value is in no response and no table');
  t.is((await app.request('GET', `/api/findings?asset_id=${asset.id}`, { token: tenant.token })).body.meta.total, leaks, 'the cut file wrote nothing');
});
