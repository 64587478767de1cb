import test from 'ava';
import type { Server } from 'node:http';
import { browserAvailable, capture, hashOf, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import type { ConsoleServer, SeededTenant } from '../_helpers/console/console-server.ts';
import { startAssetSiteConsole, type AssetSiteConsole, type SiteState } from '../_helpers/console/asset-site-console.ts';

// Scans in a real browser against a real Rampart: a scan of a loopback site watched live to
// the end, cancel, and a second scan of a busy asset (the setup of assets-scans.test.ts).

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let fixture: AssetSiteConsole;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let site: Server;
let siteUrl: string;
let siteState: SiteState;

if (up) {
  test.before(async () => {
    fixture = await startAssetSiteConsole();
    ({ server, browser, tenant, site, siteUrl, siteState } = fixture);
  });
  test.after.always(async () => {
    await fixture?.stop();
  });
}

const api = (path: string) => server.call(tenant.token, 'GET', path);

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
