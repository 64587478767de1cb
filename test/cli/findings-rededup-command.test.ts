import test from 'ava';
import { recountFindings } from '../../core/findings/finding-recount.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { rampart, rampartProcess } from './_cli.ts';

// `rampart admin findings rededup` (docs/finding-fingerprints.md#re-dedup): batched,
// resumable after kill -9 (a real child process killed with SIGKILL), idempotent.
let app: TestApp;
test.before(async () => {
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
});

const CVES = Array.from({ length: 8 }, (_, i) => `CVE-2020-${String(1000 + i)}`);
const nuclei = CVES.map((cve) => `${JSON.stringify({
  'template-id': cve, info: { name: `${cve} found`, severity: 'high', classification: { 'cve-id': [cve], 'cvss-metrics': 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' } },
  type: 'network', host: 'rededup.example:443', 'matched-at': 'rededup.example:443', port: '443', timestamp: '2026-12-01T10:00:00.000Z',
})}\n`).join('');
const sarif = JSON.stringify({
  version: '2.1.0',
  runs: [{
    tool: { driver: { name: 'Trivy', rules: CVES.map((id) => ({ id, shortDescription: { text: `${id} in a package` } })) } },
    results: CVES.map((id) => ({ ruleId: id, level: 'error', message: { text: `Package: lib ${id}` }, locations: [{ physicalLocation: { artifactLocation: { uri: 'Dockerfile' } } }] })),
  }],
});

/** Findings as they were before fingerprints had CVE keys: the keys migration 030 could not derive go, past the service. */
async function forgetDerivedKeys(tenantId: string): Promise<void> {
  await app.ctx.db('finding_keys').where({ tenant_id: tenantId }).whereNot('kind', 'rule').delete();
  await app.ctx.db('finding_cves').where({ tenant_id: tenantId }).delete();
}

async function state(tenantId: string) {
  const findings = await app.ctx.db('findings').where({ tenant_id: tenantId }).orderBy('id').pluck('id');
  const keys = await app.ctx.db('finding_keys').where({ tenant_id: tenantId }).orderBy(['finding_id', 'key_hash']).select('finding_id', 'key_hash');
  const sources = await app.ctx.db('finding_sources').where({ tenant_id: tenantId }).orderBy('id').select('finding_id', 'rule_id');
  return { findings, keys, sources };
}

test('a re-dedup killed with SIGKILL resumes where its last batch committed, merges what now matches across tools, and changes nothing when run again', async (t) => {
  const { tenantId, token } = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token, payload: { name: 'rededup.example', type: 'domain' } })).body.data.id;
  const upload = (format: string, body: string) => app.request('POST', `/api/findings/import?format=${format}&asset_id=${asset}`, { token, payload: body, headers: { 'content-type': 'application/json' } });
  t.like((await upload('nuclei', nuclei)).body.data, { created: 8 });
  await forgetDerivedKeys(tenantId);
  t.like((await upload('sarif', sarif)).body.data, { created: 8 }, 'without CVE keys nothing matches');
  await forgetDerivedKeys(tenantId);
  const env = { DATABASE_URL: app.database.url };

  const bad = await rampart(['admin', 'findings', 'rededup', '--batch-size', '0'], env);
  t.is(bad.code, 2, bad.stderr);

  const run = rampartProcess(['admin', 'findings', 'rededup', '--tenant', tenantId, '--batch-size', '2', '--pause-ms', '400'], env);
  const started = Date.now();
  while (!/batch committed/.test(run.output())) {
    if (Date.now() - started > 20_000) throw new Error(`no batch committed: ${run.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  run.child.kill('SIGKILL');
  t.is(await run.exited, null, 'killed, not exited');
  const cursor = await app.ctx.db('finding_rededup_progress').where({ scope: tenantId }).first();
  t.is(cursor.done_at, null, 'the run did not finish');
  t.not(cursor.after_id, '');
  t.true((await state(tenantId)).findings.length > 8, 'some findings not merged yet');

  const resumed = await rampart(['--json', 'admin', 'findings', 'rededup', '--tenant', tenantId, '--batch-size', '3'], env);
  t.is(resumed.code, 0, resumed.stderr);
  t.like(JSON.parse(resumed.stdout), { scope: tenantId, resumed: true, findings: 16, merged: 8, done: true });
  const after = await state(tenantId);
  t.is(after.findings.length, 8, 'each CVE is one finding');
  for (const id of after.findings) {
    const detail = (await app.request('GET', `/api/findings/${id}`, { token })).body.data;
    t.deepEqual(detail.sources.map((s: { tool: string }) => s.tool), ['nuclei', 'sarif:Trivy']);
    t.is(detail.dedup.merges[0].merged_by, 'rededup');
  }
  t.is((await app.ctx.db('finding_cves').where({ tenant_id: tenantId }).count({ n: '*' }).first())!.n as number, 8);
  t.is((await recountFindings(app.ctx.db, { tenantId })).inconsistent, 0, 'counters equal a recount');

  const again = await rampart(['--json', 'admin', 'findings', 'rededup', '--tenant', tenantId], env);
  t.is(again.code, 0, again.stderr);
  t.like(JSON.parse(again.stdout), { resumed: false, findings: 8, keysAdded: 0, merged: 0, done: true });
  t.deepEqual(await state(tenantId), after, 'idempotent');
});
