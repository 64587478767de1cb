import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// A real SARIF 2.1.0 producer from the Debian archive (.ci/run installs it): flawfinder --sarif.
const available = spawnSync('flawfinder', ['--version'], { encoding: 'utf8' }).status === 0;
if (!available) console.log(`flawfinder SARIF import test skipped: flawfinder is not installed (apt-get install -y flawfinder)${process.env.RAMPART_REQUIRE_SERVICES ? '; RAMPART_REQUIRE_SERVICES=1 makes it fail instead' : ''}`);
const withFlawfinder = available || process.env.RAMPART_REQUIRE_SERVICES ? test : test.skip;

const SOURCE = `#include <stdio.h>
#include <string.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  char buf[16];
  strcpy(buf, argv[1]);
  sprintf(buf, "%s", argv[2]);
  system(argv[3]);
  printf(argv[4]);
  return 0;
}
`;

let app: TestApp;
let dir: string;
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rampart-flawfinder-'));
  app = await createTestApp();
});
test.after.always(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

function flawfinderSarif(source: string): string {
  writeFileSync(join(dir, 'vuln.c'), source);
  return execFileSync('flawfinder', ['--sarif', 'vuln.c'], { cwd: dir, encoding: 'utf8' });
}

withFlawfinder('flawfinder\'s SARIF imports rule by rule, and survives its own re-run after an edit above the findings', async (t) => {
  const tenant = await app.tenant();
  const asset = (await app.request('POST', '/api/assets', { token: tenant.token, payload: { name: 'code.example', type: 'domain' } })).body.data;
  const sarif = flawfinderSarif(SOURCE);
  const results = JSON.parse(sarif).runs[0].results as unknown[];
  const res = await app.request('POST', `/api/findings/import?format=sarif&asset_id=${asset.id}`, { token: tenant.token, payload: sarif, headers: { 'content-type': 'application/sarif+json' } });
  t.is(res.statusCode, 200, res.raw);
  t.like(res.body.data, { results: results.length, created: results.length });

  const list = (await app.request('GET', `/api/findings?asset_id=${asset.id}&sort_by=title&sort_order=asc&per_page=100`, { token: tenant.token })).body.data;
  const strcpy = list.find((f: { title: string }) => /copying to destination/.test(f.title));
  t.like(strcpy, { severity: 'high', cvss: 7 }, 'level error, no score: the floor of high');
  const detail = (await app.request('GET', `/api/findings/${strcpy.id}`, { token: tenant.token })).body.data;
  t.like(detail.evidence, { file: 'vuln.c', line: 7, snippet: '  strcpy(buf, argv[1]);', rule_id: 'FF1001', tool: 'Flawfinder', level: 'error' });
  t.true(detail.tags.includes('CWE-120'));
  t.true(detail.references.includes('https://cwe.mitre.org/data/definitions/120.html'));

  // flawfinder's fingerprints hash the line's text: moving every line down keeps each finding.
  const moved = flawfinderSarif(`/* a comment added on top */\n${SOURCE}`);
  const again = await app.request('POST', `/api/findings/import?format=sarif&asset_id=${asset.id}`, { token: tenant.token, payload: moved, headers: { 'content-type': 'application/sarif+json' } });
  t.like(again.body.data, { created: 0, seen_again: results.length });
  const refreshed = (await app.request('GET', `/api/findings/${strcpy.id}`, { token: tenant.token })).body.data;
  t.is(refreshed.evidence.line, 8, 'evidence follows the newest file');
});
