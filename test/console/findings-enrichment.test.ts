import test from 'ava';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';
import { rampart } from '../cli/_cli.ts';

// Issue 27: the finding's sources, why they are one, and KEV/EPSS, in a real browser against
// the compiled service. The sample feeds load through the CLI into the service's database
// (feeds are read at read time: docs/feeds.md, "On findings").

const up = browserAvailable();
const run = up ? test.serial : test.skip;
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
// A real nuclei v2 result, its template and CVE ids swapped for those the test needs.
const REAL = JSON.parse(readFileSync(fixture('imports/nuclei-v2-cve.jsonl'), 'utf8').split('\n')[0]!) as Record<string, any>;
const line = (template: string, cves: string[]) => `${JSON.stringify({
  ...REAL, 'template-id': template, template: `custom/${template}.yaml`,
  info: { ...REAL.info, name: `${template} console`, classification: { ...REAL.info.classification, 'cve-id': cves.length ? cves : null } },
})}\n`;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
const ids: Record<string, string> = {};

if (up) {
  test.before(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
    tenant = await seedTenant(server);
    const asset = (await server.call(tenant.token, 'POST', '/api/assets', { name: 'enriched.example', type: 'domain' })).data;
    const imported = await fetch(`${server.url}/api/findings/import?format=nuclei&asset_id=${asset.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/x-ndjson' },
      body: [line('kev-one', ['CVE-2026-35273', 'CVE-1999-0003']), line('kev-two', ['CVE-2026-35273']), line('plain', [])].join(''),
    });
    if (!imported.ok) throw new Error(await imported.text());
    for (const f of (await server.call(tenant.token, 'GET', '/api/findings?per_page=100')).data) ids[f.title.split(' ')[0]] = f.id;
    // Two nuclei templates for one CVE stay two findings; merged by hand, they are one with two sources.
    await server.call(tenant.token, 'POST', `/api/findings/${ids['kev-one']}/merge`, { finding_ids: [ids['kev-two']] });
    const env = { DATABASE_URL: server.db.url };
    for (const [feed, file] of [['kev', 'kev-2026.06.15-head.json'], ['epss', 'epss-2025-01-01-head.csv']]) {
      const load = await rampart(['feeds', 'load', feed!, fixture(`feeds/${file}`)], env);
      if (load.code !== 0) throw new Error(load.stderr);
    }
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
  });
}

run('the finding page shows its sources, why they are one, and KEV and EPSS', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/findings/${ids['kev-one']}`);
  await page.getByRole('heading', { name: 'kev-one console', level: 1 }).waitFor();
  t.is(await page.getByTestId('kev').innerText(), 'KEV: CVE-2026-35273, due 2026-06-15, used in ransomware');
  t.regex(await page.getByTestId('epss').innerText(), /^EPSS 4\.4% \(CVE-1999-0003, percentile 92%\)$/);
  t.regex(await page.locator('.facts').first().innerText(), /CVE-2026-35273: Oracle PeopleSoft Enterprise PeopleTools, added 2026-06-12, due 2026-06-15; known to be used in ransomware campaigns/);
  const sources = page.getByTestId('sources').locator('tbody tr');
  t.is(await sources.count(), 2);
  t.regex(await sources.nth(0).innerText(), /nuclei:kev-one|kev-one/);
  t.regex(await page.getByTestId('sources').innerText(), /kev-two/);
  t.regex(await page.getByTestId('dedup').innerText(), /^Why these are one finding: merged by hand \(below\)\. Fingerprint: .*cve CVE-2026-35273/);
  t.regex(await page.getByTestId('merges').innerText(), new RegExp(`${ids['kev-two']} merged by`));
  t.deepEqual(await capture(page, 'findings-enrichment', 'finding'), []);

  // Without a CVE: no KEV, no EPSS, said in words; one source, one rule.
  await page.goto(`${server.url}/console#/findings/${ids.plain}`);
  await page.getByRole('heading', { name: 'plain console', level: 1 }).waitFor();
  t.is(await page.locator('.badge.kev-none').innerText(), 'not in KEV');
  t.is(await page.getByTestId('epss').innerText(), 'no EPSS score');
  t.regex(await page.getByTestId('dedup').innerText(), /one rule reported it/);
  t.deepEqual(problems, []);
  await context.close();
});

run('the list: a KEV marker and an EPSS column, the KEV and EPSS filters and the EPSS sort in the URL', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, '/findings');
  const rows = page.locator('[data-testid="findings"] tbody tr');
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="findings"] tbody tr').length === 2);
  const marked = rows.filter({ has: page.locator('.badge.kev') });
  t.is(await marked.count(), 1);
  t.is(await marked.locator('[data-epss]').innerText(), '4.4%');

  await page.getByLabel('KEV', { exact: true }).selectOption('false');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('kev=false'));
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="findings"] tbody tr').length === 1);
  t.regex(await rows.first().innerText(), /plain console/);
  await page.getByLabel('KEV', { exact: true }).selectOption('true');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('kev=true'));
  await page.locator('[data-testid="findings"] tbody tr', { hasText: 'kev-one console' }).waitFor();
  t.is(await rows.count(), 1);

  await page.getByLabel('KEV', { exact: true }).selectOption('');
  await page.getByLabel('EPSS from (%)').fill('4');
  await page.getByLabel('EPSS from (%)').press('Enter');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('epss_min=0.04'));
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="findings"] tbody tr').length === 1);
  t.regex(await rows.first().innerText(), /kev-one console/);

  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('Sort by').selectOption('epss:asc');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('sort_by=epss') && (globalThis as any).location.hash.includes('sort_order=asc'));
  const expected = (await server.call(tenant.token, 'GET', '/api/findings?sort_by=epss&sort_order=asc')).data.map((f: { title: string }) => f.title);
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="findings"] tbody tr').length === 2);
  await page.waitForFunction((first) => (globalThis as any).document.querySelector('[data-testid="findings"] tbody tr td:nth-child(4)')?.innerText.startsWith(first), expected[0]);
  t.deepEqual((await rows.locator('td:nth-child(4) a').allInnerTexts()), expected);
  t.deepEqual(problems, []);
  await context.close();
});
