import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { BANDIT_SAMPLE, banditJson, nmapXml, startNmapTarget, withTool, type NmapTarget } from '../../core/imports/_tools.ts';

// Real tool output, produced here by the Debian packages .ci/run installs (nmap, bandit).
const withNmap = withTool('nmap', ['--version'], 'nmap import API tests');
const withBandit = withTool('bandit', ['--version'], 'bandit import API tests');

let app: TestApp;
let dir: string;
let target: NmapTarget | undefined;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-bandit-api-'));
  cpSync(BANDIT_SAMPLE, dir, { recursive: true });
  app = await createTestApp();
});
test.after.always(async () => {
  await target?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function tenantWithAsset(name: string, type = 'domain') {
  const tenant = await app.tenant();
  const asset = await app.request('POST', '/api/assets', { token: tenant.token, payload: { name, type } });
  return { ...tenant, assetId: asset.body.data.id as string };
}

const upload = (token: string, query: string, body: string, contentType = 'application/json') =>
  app.request('POST', `/api/findings/import?${query}`, { token, payload: body, headers: { 'content-type': contentType } });

/** Findings and events of the tenant: a refused import leaves both as they were. */
async function footprint(tenantId: string) {
  const [f, e] = await Promise.all([
    app.ctx.db('findings').where({ tenant_id: tenantId }).count({ n: '*' }).first(),
    app.ctx.db('events').where({ tenant_id: tenantId }).count({ n: '*' }).first(),
  ]);
  return { findings: Number(f!.n), events: Number(e!.n) };
}

withNmap('nmap XML without a format: detected, mapped to the IP asset by name, re-imported without a new finding', async (t) => {
  target = await startNmapTarget();
  const xml = await nmapXml(target);
  const { token, tenantId } = await tenantWithAsset('127.0.0.1', 'ip');
  const first = await upload(token, 'map_by_name=true', xml.scripts, 'application/xml');
  t.is(first.statusCode, 200, first.raw);
  t.like(first.body.data, { format: 'nmap', format_detected: true, results: 4, created: 4, skipped: 0 });
  const services = await upload(token, 'format=nmap&map_by_name=true', xml.services, 'text/xml');
  t.like(services.body.data, { format: 'nmap', format_detected: false, created: 1 });

  const list = (await app.request('GET', '/api/findings?per_page=100&sort_by=title&sort_order=asc', { token })).body.data as Array<{ id: string; title: string; severity: string; cvss: number }>;
  t.is(list.length, 5);
  const vuln = list.find((f) => f.title === 'CVE-2011-3192: Apache byterange filter DoS')!;
  t.like(vuln, { severity: 'high', cvss: 7 });
  const detail = (await app.request('GET', `/api/findings/${vuln.id}`, { token })).body.data;
  t.like(detail.evidence, { host: '127.0.0.1', port: target.httpPort, script: 'http-vuln-cve2011-3192', state: 'VULNERABLE', tool: 'nmap' });
  t.true(list.some((f) => f.title === `Open port ${target!.sshPort}/tcp: ssh (OpenSSH 7.2p2 Ubuntu 4ubuntu2.8 Ubuntu Linux; protocol 2.0)` && f.severity === 'info'));

  const before = await footprint(tenantId);
  const again = await upload(token, 'map_by_name=true', xml.scripts, 'application/xml');
  t.like(again.body.data, { created: 0, seen_again: 4 });
  t.is((await footprint(tenantId)).findings, before.findings);
});

withNmap('an nmap report cut short or broken is a 400 naming the line and column, and nothing is written', async (t) => {
  const local = await startNmapTarget();
  try {
    const xml = (await nmapXml(local)).scripts;
    const { token, tenantId, assetId } = await tenantWithAsset('nmap-broken.example');
    const before = await footprint(tenantId);
    for (const body of [xml.slice(0, xml.indexOf('</host>')), xml.replace('</ports>', '</port>')]) {
      const res = await upload(token, `asset_id=${assetId}`, body, 'application/xml');
      t.is(res.statusCode, 400, res.raw);
      t.is(res.body.error.code, 'invalid_import_file');
      t.regex(res.body.error.details[0].field, /^line \d+, column \d+$/);
      t.regex(res.body.error.message, /^The nmap XML report is not valid at line \d+, column \d+: not well-formed XML/);
    }
    t.deepEqual(await footprint(tenantId), before);
  } finally {
    await local.close();
  }
});

withBandit('bandit JSON: detected, one finding per issue on the given asset, a re-import adds nothing; a broken report writes nothing', async (t) => {
  const json = await banditJson(dir);
  const { token, tenantId, assetId } = await tenantWithAsset('repo.example');
  const unmapped = await upload(token, '', json);
  t.is(unmapped.statusCode, 400);
  t.is(unmapped.body.error.code, 'unmapped_target', 'bandit names no target: asset_id is needed');
  const first = await upload(token, `asset_id=${assetId}`, json);
  t.is(first.statusCode, 200, first.raw);
  t.like(first.body.data, { format: 'bandit', format_detected: true, results: 6, created: 6 });
  const list = (await app.request('GET', `/api/findings?asset_id=${assetId}&per_page=100`, { token })).body.data as Array<{ title: string; severity: string; cvss: number }>;
  t.like(list.find((f) => f.title.startsWith('B602 '))!, { severity: 'high', cvss: 7 });

  const before = await footprint(tenantId);
  const again = await upload(token, `format=bandit&asset_id=${assetId}`, json);
  t.like(again.body.data, { format_detected: false, created: 0, seen_again: 6 });
  t.is((await footprint(tenantId)).findings, before.findings);

  const cut = json.slice(0, Math.floor(json.length * 0.8));
  const broken = await upload(token, `asset_id=${assetId}`, cut);
  t.is(broken.statusCode, 400);
  t.is(broken.body.error.code, 'invalid_import_file');
  t.regex(broken.body.error.details[0].field, /^line \d+, column \d+$/);
  const mismatch = await upload(token, `format=nmap&asset_id=${assetId}`, json);
  t.like(mismatch.body.error, { code: 'import_format_mismatch', detected_format: 'bandit' });
  const unknown = await upload(token, `asset_id=${assetId}`, '{"hello": "world"}');
  t.is(unknown.statusCode, 400);
  t.is(unknown.body.error.code, 'import_format_unknown');
  t.regex(unknown.body.error.message, /format=sarif\|nuclei\|zap\|nmap\|bandit/);
  const after = await footprint(tenantId);
  t.is(after.findings, before.findings);
});
