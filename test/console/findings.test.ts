import test from 'ava';
import { readFile } from 'node:fs/promises';
import { browserAvailable, capture, hashOf, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import type { ConsoleServer, SeededTenant } from '../_helpers/console/console-server.ts';
import { startFindingsConsole, type FindingsConsole } from '../_helpers/console/findings-console.ts';

// The overview and the findings pages in a real browser: numbers that match the API, filters
// in the URL, exports (direct and background). Triage, the finding's page and the live
// stream are in findings-triage.test.ts (same setup; two files run side by side).

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let fixture: FindingsConsole;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;

if (up) {
  test.before(async () => {
    fixture = await startFindingsConsole();
    ({ server, browser, tenant } = fixture);
  });
  test.after.always(async () => {
    await fixture?.stop();
  });
}

const api = (path: string) => server.call(tenant.token, 'GET', path);

run('overview: the numbers are the API\'s, the trend is drawn, and every section is there', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  for (const severity of ['critical', 'high', 'medium', 'low', 'info']) {
    const tile = page.locator(`[data-testid="open-by-severity"] [data-severity="${severity}"]`);
    const expected = (await api(`/api/findings?status=open&severity=${severity}&per_page=1`)).meta.total;
    t.is(await tile.innerText(), String(expected), severity);
  }
  const stats = (await api('/api/findings/stats')).data;
  for (const [status, count] of Object.entries(stats.by_status)) {
    t.is(await page.locator(`[data-testid="by-status"] [data-status="${status}"]`).innerText(), String(count), status);
  }
  await page.locator('.trend-canvas canvas').waitFor();
  await page.getByText('Show the numbers as a table').click();
  const today = stats.trend.last_30_days.daily[29];
  t.regex(await page.getByRole('table', { name: 'Findings per day, last 30 days' }).innerText(), new RegExp(`${today.date}\\s+${today.new}\\s+${today.resolved}`));
  t.is(await page.locator('[data-testid="riskiest-assets"] tbody tr').count(), 3);
  await page.getByTestId('no-running-scans').waitFor();
  t.regex(await page.locator('#deliveries').locator('..').innerText(), /No webhooks configured/);
  t.regex(await page.locator('#approvals').locator('..').innerText(), /Nothing is waiting/);
  await page.getByText('Live', { exact: true }).waitFor();
  t.deepEqual(await capture(page, 'overview', 'overview'), []);

  // A tile is a link to the list it counts.
  await page.locator('[data-testid="open-by-severity"] a').first().click();
  await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
  t.is(hashOf(page), '#/findings?status=open&severity=critical');
  t.deepEqual(problems, []);
  await context.close();
});

run('findings: filters live in the URL, a shared URL restores them', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Findings', exact: true }).click();
  await page.getByTestId('findings').waitFor();
  t.is(await page.locator('[data-testid="findings"] tbody tr').count(), 20);

  await page.getByRole('checkbox', { name: 'critical', exact: true }).check();
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('severity=critical'));
  await page.getByLabel('Status', { exact: true }).selectOption('open');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('status=open'));
  await page.getByLabel('CVSS from').fill('9');
  await page.getByLabel('CVSS from').press('Enter');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('cvss_min=9'));
  await page.getByLabel('Sort by').selectOption('title:asc');
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('sort_by=title'));
  const expected = await api('/api/findings?severity=critical&status=open&cvss_min=9&sort_by=title&sort_order=asc');
  await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('[data-testid="findings"] tbody tr').length === n, expected.data.length);
  const titles = await page.locator('[data-testid="findings"] tbody tr td:nth-child(4)').allInnerTexts();
  t.deepEqual(titles, expected.data.map((f: { title: string }) => f.title));

  // The same URL in a fresh tab (after sign-in) shows the same view with the controls set.
  const shared = page.url();
  const other = await browser.newPage({ signedInAs: tenant.token });
  await other.page.goto(shared);
  await other.page.getByTestId('findings').waitFor();
  t.true(await other.page.getByRole('checkbox', { name: 'critical', exact: true }).isChecked());
  t.false(await other.page.getByRole('checkbox', { name: 'high', exact: true }).isChecked());
  t.is(await other.page.getByLabel('Status', { exact: true }).inputValue(), 'open');
  t.is(await other.page.getByLabel('CVSS from').inputValue(), '9');
  t.deepEqual(await other.page.locator('[data-testid="findings"] tbody tr td:nth-child(4)').allInnerTexts(), titles);
  await other.context.close();

  // A value the API refuses is shown in words with its code, not swallowed.
  await page.goto(`${server.url}/console#/findings?cvss_min=11`);
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex(await alert.innerText(), /validation_failed/);
  t.regex(await alert.innerText(), /cvss_min/);
  t.deepEqual(problems, []);
  await context.close();
});

run('export: a small one is the file itself, a large one runs in the background with its progress', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/findings?severity=critical`);
  await page.getByTestId('findings').waitFor();
  const critical = (await api('/api/findings?severity=critical')).meta.total;
  let downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: `Export ${critical} matching findings` }).click();
  let download = await downloadPromise;
  t.regex(download.suggestedFilename(), /^findings-.*\.csv$/);
  const csv = await readFile((await download.path())!, 'utf8');
  t.is(csv.trim().split('\n').length, critical + 1, 'header + one row per critical finding');

  // All 30 are above the direct limit (12): a background export, followed until its file downloads.
  await page.goto(`${server.url}/console#/findings`);
  await page.getByTestId('findings').waitFor();
  await page.getByLabel('Export format').selectOption('json');
  downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export 30 matching findings' }).click();
  await page.locator('.export-progress').waitFor();
  t.regex(await page.locator('.export-progress').innerText(), /Large export \(30 findings, JSON\)/);
  download = await downloadPromise;
  const json = JSON.parse(await readFile((await download.path())!, 'utf8'));
  t.is(json.length, 30);
  await page.locator('[data-export-status="completed"]').waitFor();
  await page.getByText(/Downloaded findings-exp_.*\(30 findings/).waitFor();
  t.deepEqual(problems, []);
  await context.close();
});
