import test from 'ava';
import { browserAvailable, capture, launchBrowser, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Signing in and out of the console in a real browser, both ways, against a real Rampart.

const up = browserAvailable();
const STORED_TOKEN = () => (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('rampart.console.token');
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;

if (up) {
  test.before(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
    tenant = await seedTenant(server);
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
  });
}

run('email and password: a login token in this tab only, revoked at sign-out', async (t) => {
  const { page, context, problems } = await browser.newPage();
  await page.goto(`${server.url}/console`);
  t.deepEqual(await capture(page, 'sign-in', 'sign-in'), []);

  await page.getByLabel('Email', { exact: true }).fill(tenant.email);
  await page.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex(await alert.innerText(), /invalid_credentials/);
  t.regex(await alert.innerText(), /HTTP 401/);

  await page.getByLabel('Password', { exact: true }).fill(tenant.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await page.getByText('Live', { exact: true }).waitFor();
  t.regex(await page.locator('.topbar').innerText(), /blue-team/);

  const stored = await page.evaluate(STORED_TOKEN);
  t.truthy(stored);
  t.regex(stored!, /^rmp_/);
  t.false(page.url().includes(stored!), 'the token is never in the URL');
  t.deepEqual(await context.cookies(), [], 'no cookie at all');
  const me = await server.call(stored!, 'GET', '/api/user/me');
  t.is(me.data.token.kind, 'login');

  // A reload keeps the session (sessionStorage), checked again against the API.
  await page.reload();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
  t.is(await page.evaluate(STORED_TOKEN), null);
  const after = await fetch(`${server.url}/api/user/me`, { headers: { authorization: `Bearer ${stored}` } });
  t.is(after.status, 401, 'signing out revoked the login token');
  t.deepEqual(problems, []);
  await context.close();
});

run('a pasted API token: checked, scopes respected, not revoked at sign-out', async (t) => {
  const { page, context, problems } = await browser.newPage();
  await page.goto(`${server.url}/console`);
  await page.getByLabel('API token', { exact: true }).fill('rmp_not_a_real_token');
  await page.getByRole('button', { name: 'Use this token' }).click();
  await page.getByRole('alert').waitFor();
  t.regex(await page.getByRole('alert').innerText(), /unauthorized/);

  await page.getByLabel('API token', { exact: true }).fill(tenant.readOnlyToken);
  await page.getByRole('button', { name: 'Use this token' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  t.regex(await page.locator('.topbar').innerText(), /API token: read-only/);
  // Pages the token's scopes do not allow are disabled in the menu, with the reason.
  t.regex(await page.getByRole('navigation', { name: 'Main' }).innerText(), /Assets \(needs assets:read\)[\s\S]*Scans \(needs scan:read\)/);
  // The menu only: the overview's own links (findings by severity) also name findings.
  const menu = page.getByRole('navigation', { name: 'Main' });
  t.is(await menu.getByRole('link', { name: 'Assets' }).count(), 0);
  t.is(await menu.getByRole('link', { name: 'Findings', exact: true }).count(), 1);
  // Overview sections it cannot read say so instead of failing.
  t.regex(await page.locator('#riskiest').locator('..').innerText(), /needs the assets:read scope/);
  // A page reached by its URL anyway says which scope is missing.
  await page.goto(`${server.url}/console#/assets`);
  await page.getByText('This page needs the assets:read scope').waitFor();
  await page.goto(`${server.url}/console#/findings`);
  await page.getByTestId('findings').waitFor();
  t.regex(await page.locator('#kbd-help').innerText(), /needs the findings:write scope/);
  t.is(await page.getByRole('checkbox', { name: /^Select / }).count(), 0, 'no triage controls without findings:write');
  await page.goto(`${server.url}/console#/`);
  // No events:read: the live state says why instead of pretending.
  t.regex(await page.locator('.stream-status').innerText(), /needs events:read/);
  t.deepEqual(await capture(page, 'sign-in', 'read-only-overview'), []);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
  const still = await fetch(`${server.url}/api/user/me`, { headers: { authorization: `Bearer ${tenant.readOnlyToken}` } });
  t.is(still.status, 200, 'an API token is forgotten, not revoked');
  t.deepEqual(problems, []);
  await context.close();
});

run('a revoked token signs the console out with the reason', async (t) => {
  const { page, context, problems } = await browser.newPage();
  const created = await server.call(server.adminToken, 'POST', `/api/admin/tenants/${tenant.tenantId}/tokens`, { name: 'short-lived', scopes: ['findings:read', 'events:read'] });
  await page.goto(`${server.url}/console`);
  await page.getByLabel('API token', { exact: true }).fill(created.data.token);
  await page.getByRole('button', { name: 'Use this token' }).click();
  await page.getByText('Live', { exact: true }).waitFor();
  await server.call(server.adminToken, 'DELETE', `/api/admin/tokens/${created.data.id}`);
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
  t.is(await page.evaluate(STORED_TOKEN), null);
  t.deepEqual(problems, []);
  await context.close();
});
