import test from 'ava';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserAvailable, capture, hashOf, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import type { ConsoleServer, SeededTenant } from '../_helpers/console/console-server.ts';
import { startAssetSiteConsole, type AssetSiteConsole, type SiteState } from '../_helpers/console/asset-site-console.ts';

// Assets in a real browser against a real Rampart: list filters, add, file import with its
// report, tags and metadata, ownership verification of a loopback site, schedules. The scans
// of that site are in scans.test.ts (same setup; two files run side by side).

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let fixture: AssetSiteConsole;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let siteState: SiteState;

if (up) {
  test.before(async () => {
    fixture = await startAssetSiteConsole();
    ({ server, browser, tenant, siteState } = fixture);
  });
  test.after.always(async () => {
    await fixture?.stop();
  });
}

const api = (path: string) => server.call(tenant.token, 'GET', path);

run('assets: filters in the URL, add one, import a file and read the report', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Assets', exact: true }).click();
  await page.getByTestId('assets').waitFor();
  const filters = page.getByRole('search', { name: 'Filter assets' });
  await filters.getByLabel('Type').selectOption('ip');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('type=ip'));
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="assets"] tbody tr').length === 1);
  t.regex(await page.getByTestId('assets').innerText(), /192\.0\.2\.10/);
  await filters.getByLabel('Type').selectOption('');
  await page.getByLabel('Search name and metadata').fill('beta');
  await page.getByLabel('Search name and metadata').press('Enter');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('search=beta'));
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('[data-testid="assets"] tbody tr').length === 1);
  t.is(hashOf(page), '#/assets?search=beta');

  // Import: two good rows and a bad one.
  const dir = await mkdtemp(join(tmpdir(), 'rampart-console-'));
  const file = join(dir, 'assets.csv');
  await writeFile(file, 'name,type,tags\nimported-1.example.com,domain,"a,b"\nimported-2.example.com,domain,\nnot a host,domain,\n');
  await page.getByText('Add an asset or import a file').click();
  await page.getByLabel('CSV or JSON file').setInputFiles(file);
  await page.getByRole('button', { name: 'Import' }).click();
  const report = page.getByTestId('import-report');
  await report.waitFor();
  t.regex(await report.innerText(), /2 imported, 1 refused/);
  t.regex(await report.innerText(), /3\s+not a host\s+invalid_/);
  t.is((await api('/api/assets?search=imported-')).meta.total, 2);
  t.deepEqual(await capture(page, 'assets', 'assets-import'), []);

  // Add one: the console goes to its page.
  const add = page.getByRole('form', { name: 'Add an asset' });
  await add.getByLabel('Name (domain, IP, URL or CIDR)').fill('added.example.net');
  await add.getByLabel('Tags (comma-separated)').fill('new, web');
  await add.getByRole('button', { name: 'Add asset' }).click();
  await page.getByRole('heading', { level: 1, name: 'added.example.net' }).waitFor();
  t.regex(hashOf(page), /^#\/assets\/ast_/);
  t.deepEqual((await api('/api/assets?search=added.example.net')).data[0].tags, ['new', 'web']);
  t.deepEqual(problems, []);
  await context.close();
});

run('asset detail: tags and metadata, ownership verification with "check now"', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  const asset = (await api('/api/assets?type=url')).data[0];
  await openSignedIn(page, server.url, `/assets/${asset.id}`);
  await page.getByRole('heading', { name: 'Ownership verification' }).waitFor();

  await page.getByLabel('Tags (comma-separated)').fill('web, external');
  await page.getByLabel('Metadata (a JSON object)').fill('{"owner": "web team"');
  await page.getByRole('button', { name: 'Save tags and metadata' }).click();
  t.regex(await page.getByRole('alert').innerText(), /not valid JSON/);
  await page.getByLabel('Metadata (a JSON object)').fill('{"owner": "web team"}');
  await page.getByRole('button', { name: 'Save tags and metadata' }).click();
  await page.getByText('Tags and metadata saved.').waitFor();
  const saved = (await api(`/api/assets/${asset.id}`)).data;
  t.deepEqual(saved.tags, ['web', 'external']);
  t.deepEqual(saved.metadata, { owner: 'web team' });

  await page.getByRole('button', { name: 'Show the token and instructions' }).click();
  const token = await page.getByTestId('verification-token').innerText();
  t.regex(token, /^rv-/);
  t.regex(await page.locator('ol.methods').innerText(), /HTML meta tag[\s\S]*File on the web server/);
  await page.getByLabel('Method to check').selectOption('meta_tag');
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.getByTestId('verification-result').waitFor();
  t.regex(await page.getByTestId('verification-result').innerText(), /Not verified/);
  t.deepEqual(await capture(page, 'assets', 'asset-verification'), []);

  siteState.token = token;
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.getByText('Verified.', { exact: true }).waitFor();
  await page.getByText('ownership verified', { exact: false }).first().waitFor();
  t.true((await api(`/api/assets/${asset.id}`)).data.verified);
  t.deepEqual(problems, []);
  await context.close();
});

run('schedules: create one for an asset, pause it', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/schedules`);
  await page.getByRole('heading', { name: 'Scan schedules', level: 1 }).waitFor();
  await page.getByText('New schedule').click();
  // The form's own fields: the list's filter has an "Asset" too, and the form appears only
  // once the assets are loaded.
  const form = page.getByRole('form', { name: 'New schedule' });
  await form.getByLabel('Asset', { exact: true }).selectOption({ label: 'alpha.example.com' });
  await form.getByLabel('Name', { exact: true }).fill('nightly alpha');
  await page.getByLabel('Cron (minute hour day month weekday)').fill('30 2 * * *');
  await page.getByLabel('Time zone').fill('Europe/Berlin');
  const posted = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/scan-schedules' && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create schedule' }).click();
  const response = await posted;
  t.is(response.status(), 201, `${await response.text()} (sent ${response.request().postData()})`);
  await page.getByRole('cell', { name: 'nightly alpha', exact: true }).waitFor();
  const schedule = (await api('/api/scan-schedules')).data.find((s: { name: string }) => s.name === 'nightly alpha');
  t.like(schedule, { cron: '30 2 * * *', timezone: 'Europe/Berlin', enabled: true, scan_type: 'full' });
  await page.getByRole('button', { name: 'Pause nightly alpha' }).click();
  await page.getByRole('button', { name: 'Resume nightly alpha' }).waitFor();
  t.false((await api(`/api/scan-schedules/${schedule.id}`)).data.enabled);
  t.deepEqual(await capture(page, 'scans', 'schedules'), []);
  t.deepEqual(problems, []);
  await context.close();
});
