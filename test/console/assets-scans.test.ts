import test from 'ava';
import { writeFile, mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserAvailable, capture, hashOf, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Assets and scans in a real browser against a real Rampart: list filters, add, file import
// with its report, tags and metadata, ownership verification of a loopback site, a scan of
// it watched live to the end, cancel, schedules.

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
/** The loopback site the asset points at: serves the verification meta tag once it is known; can hang. */
let site: Server;
let siteUrl: string;
const siteState = { token: '', hang: false };

if (up) {
  test.before(async () => {
    site = createServer((req, res) => {
      if (siteState.hang) return; // never answers: keeps a web scan busy until it is cancelled
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><html><head><title>site</title>${siteState.token ? `<meta name="rampart-verification" content="${siteState.token}">` : ''}</head><body>hello</body></html>`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
    [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
    tenant = await seedTenant(server);
    for (const [name, type] of [['alpha.example.com', 'domain'], ['beta.example.org', 'domain'], ['192.0.2.10', 'ip'], [siteUrl, 'url']]) {
      await server.call(tenant.token, 'POST', '/api/assets', { name, type, tags: ['seed'] });
    }
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
    site?.closeAllConnections();
    site?.close();
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

run('scan now: a port scan of the loopback site, watched live until it completes', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  const asset = (await api('/api/assets?type=url')).data[0];
  const port = new URL(siteUrl).port;
  await openSignedIn(page, server.url, `/assets/${asset.id}`);
  await page.getByLabel('Scan type').selectOption('port');
  await page.getByText('Options', { exact: true }).click();
  await page.getByLabel('Ports (port scanner)').fill(port);
  await page.getByRole('button', { name: 'Start the scan' }).click();
  await page.getByRole('heading', { name: `port scan of ${asset.name}` }).waitFor();
  const scanId = hashOf(page).replace('#/scans/', '');
  t.regex(scanId, /^scn_/);
  // No reload from here on: the page follows the stream.
  await page.locator('[data-testid="scan-status"][data-status="completed"]').waitFor({ timeout: 60_000 });
  t.is(await page.getByTestId('scan-progress').innerText(), '100%');
  const scan = (await api(`/api/scan/${scanId}`)).data;
  t.is(scan.status, 'completed');
  t.deepEqual(scan.options.ports, port);
  const found = (await api(`/api/scan/${scanId}/results`)).meta.total;
  await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('[data-testid="scan-findings"] li').length === n, found);
  t.deepEqual(await capture(page, 'scans', 'scan-completed'), []);

  // The scans list shows it; its status filter goes into the URL.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Scans', exact: true }).click();
  await page.getByTestId('scans').waitFor();
  await page.getByLabel('Status').selectOption('completed');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('status=completed'));
  t.regex(await page.getByTestId('scans').innerText(), new RegExp(asset.name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  t.deepEqual(await capture(page, 'scans', 'scans'), []);
  t.deepEqual(problems, []);
  await context.close();
});

run('cancel a running scan; a second scan of a busy asset explains itself', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  const asset = (await api('/api/assets?type=url')).data[0];
  siteState.hang = true;
  t.teardown(() => {
    siteState.hang = false;
    site.closeAllConnections();
  });
  await openSignedIn(page, server.url, `/assets/${asset.id}`);
  await page.getByLabel('Scan type').selectOption('web_app');
  await page.getByRole('button', { name: 'Start the scan' }).click();
  await page.getByRole('heading', { name: `web_app scan of ${asset.name}` }).waitFor();
  const scanId = hashOf(page).replace('#/scans/', '');

  // Meanwhile another tab tries to scan the same asset: 409 scan_in_progress, with a link to the scan.
  const other = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(other.page, server.url, `/assets/${asset.id}`);
  await other.page.getByRole('button', { name: 'Start the scan' }).click();
  await other.page.getByRole('alert').waitFor();
  t.regex(await other.page.getByRole('alert').innerText(), /scan_in_progress/);
  t.is(await other.page.getByRole('link', { name: 'Go to that scan' }).getAttribute('href'), `#/scans/${scanId}`);
  await other.context.close();

  await page.getByRole('button', { name: 'Cancel the scan' }).click();
  await page.locator('[data-testid="scan-status"][data-status="cancelled"]').waitFor();
  t.is((await api(`/api/scan/${scanId}`)).data.status, 'cancelled');
  t.is(await page.getByRole('button', { name: 'Cancel the scan' }).count(), 0);
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
