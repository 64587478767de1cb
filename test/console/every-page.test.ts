import test from 'ava';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedFindings, seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Every page of the console opened against a real Rampart on this run's database engine:
// each one loads its data from the API without an error box, a CSP violation or a page
// error, and passes the accessibility check. The interactions themselves (triage, scans,
// retries, approvals…) are the other files of this folder; on the MariaDB pass of .ci/run
// only this file runs (docs/testing.md says why).

const up = browserAvailable();
const run = up ? test : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
const paths: string[] = [];

if (up) {
  test.before(async () => {
    [server, browser] = await Promise.all([startConsoleServer({ RAMPART__outbound__requireHttps: 'false' }), launchBrowser()]);
    tenant = await seedTenant(server, 'every-page');
    const seeded = await seedFindings(server, tenant.token, 12);
    const call = (method: string, path: string, body?: unknown) => server.call(tenant.token, method, path, body);
    const webhook = (await call('POST', '/api/webhooks', { name: 'soc', url: 'http://127.0.0.1:9/hook', events: ['finding.new'] })).data.id as string;
    const action = (await call('POST', '/api/actions', { name: 'notify-soc', type: 'webhook', executor: 'webhook', config: { url: 'http://127.0.0.1:9/notify', method: 'POST', headers: {}, body_template: '{"from":"rampart"}' } })).data.id as string;
    const playbook = (await call('POST', '/api/playbooks', {
      name: 'tell-the-soc', version: '1.0.0', description: 'Tell the SOC.', trigger: { event: 'manual' },
      steps: [{ id: 'tell', name: 'Tell the SOC', type: 'action', action_ref: 'notify-soc' }],
    })).data.id as string;
    const scan = (await call('POST', '/api/scan/create', { asset_id: seeded.assets[0]!.id, scan_type: 'dns' })).data.scan_id as string;
    paths.push(
      '/', '/findings', `/findings/${seeded.findings[0]!.id}`, '/assets', `/assets/${seeded.assets[0]!.id}`, '/scans', `/scans/${scan}`,
      '/schedules', '/webhooks', `/webhooks/${webhook}`, '/actions', `/actions/${action}`, '/approvals', '/playbooks', `/playbooks/${playbook}`,
      '/events', '/settings',
    );
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
  });
}

/**
 * Opens each of `pages` in one tab and checks it; the paths are split over two tabs (two tests
 * that ava runs at once) so the screenshots and accessibility checks of one overlap the other's loads.
 */
async function checkPages(t: import('ava').ExecutionContext, pages: () => string[]): Promise<void> {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  for (const path of pages()) {
    await page.goto(`${server.url}/console#${path}`);
    await page.locator('main h1').first().waitFor();
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('main .loading'), undefined, { timeout: 30_000 });
    const errors = await page.getByRole('alert').allInnerTexts();
    t.deepEqual(errors, [], `${path}: ${errors.join(' | ')}`);
    const name = path === '/' ? 'overview' : path.slice(1).replace(/\/[a-z]{3}_[0-9A-Z]+$/, '-detail').replace(/\//g, '-');
    t.deepEqual(await capture(page, 'every-page', name), [], path);
  }
  t.deepEqual(problems, []);
  await context.close();
}

run('every page loads its data without an error, a CSP violation or an accessibility problem (first half)', (t) => checkPages(t, () => paths.filter((_, i) => i % 2 === 0)));
run('every page loads its data without an error, a CSP violation or an accessibility problem (second half)', (t) => checkPages(t, () => paths.filter((_, i) => i % 2 === 1)));
