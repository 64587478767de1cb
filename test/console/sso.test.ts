import test from 'ava';
import { browserAvailable, capture, launchBrowser, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { startConsoleServer, type ConsoleServer } from '../_helpers/console/console-server.ts';
import { freePort } from '../_helpers/harness/spawn-service.ts';
import { startProvider, type TestProvider } from '../_helpers/sso/oidc-provider.ts';

// Single sign-on end to end: chromium, a real Rampart (core/main.ts) and a real OpenID
// provider (oidc-provider) on loopback, through the provider's own login and consent pages.

const up = browserAvailable();
const run = up ? test.serial : test.skip;
const STORED_TOKEN = () => (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('rampart.console.token');

let server: ConsoleServer;
let browser: ConsoleBrowser;
let idp: TestProvider;
let url: string;
let acme: string;

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

if (up) {
  test.before(async () => {
    // Rampart's port is chosen first: the provider registers its redirect URI, Rampart's configuration names the provider.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    idp = await startProvider(`${url}/api/user/auth/sso/callback`);
    idp.accounts.set('alice', { email: 'alice@acme.example', name: 'Alice Analyst', groups: ['sec-analysts'] });
    idp.accounts.set('mallory', { email: 'mallory@acme.example', name: 'Mallory', groups: ['marketing'] });
    const providers = [{ id: 'corp', name: 'Corp IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, scopes: ['openid', 'email', 'profile', 'groups'], claim: 'groups', mappings: [{ value: 'sec-analysts', tenant: 'acme', role: 'analyst' }] }];
    [server, browser] = await Promise.all([
      startConsoleServer({ PORT: String(port), RAMPART__sso__redirectUri: `${url}/api/user/auth/sso/callback`, RAMPART__sso__allowInsecureHttp: 'true', RAMPART__sso__providers: JSON.stringify(providers) }),
      launchBrowser(),
    ]);
    const tenant = await call(server.adminToken, 'POST', '/api/admin/tenants', { name: 'acme', tier: 'premium' });
    if (tenant.status !== 201) throw new Error(JSON.stringify(tenant.body));
    acme = tenant.body.data.id;
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
    await idp?.close();
  });
}

async function throughProvider(page: import('playwright-core').Page, login: string) {
  await page.goto(`${url}/console`);
  await page.getByRole('button', { name: 'Sign in with Corp IdP' }).click();
  // The provider's development login page, then its consent page.
  await page.waitForURL((u) => u.origin === idp.issuer);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  await page.locator('button', { hasText: 'Continue' }).click();
}

run('a user of a mapped group signs in through the provider and gets the analyst role', async (t) => {
  const { page, context, problems } = await browser.newPage();
  await page.goto(`${url}/console`);
  await page.getByRole('heading', { name: 'With your organisation\'s account' }).waitFor();
  t.deepEqual(await capture(page, 'sso', 'sign-in-with-provider'), []);
  await throughProvider(page, 'alice');
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  t.regex(await page.locator('.topbar').innerText(), /acme/);
  t.false(page.url().includes('handoff'), 'the hand-off code is gone from the address bar');
  const token = await page.evaluate(STORED_TOKEN);
  t.regex(token!, /^rmp_/);
  const me = await call(token!, 'GET', '/api/user/me');
  t.like(me.body.data, { tenant: { name: 'acme' }, token: { kind: 'login', name: 'sso:corp' } });
  t.false(me.body.data.token.scopes.includes('webhooks:manage'));
  // The role's scopes in the console: webhooks are out of an analyst's reach.
  t.regex(await page.getByRole('navigation', { name: 'Main' }).innerText(), /Webhooks \(needs webhooks:manage\)/);
  t.true(['cookie', ...(await context.cookies()).map((c) => c.name)].every((n) => !/rampart/i.test(n)), 'Rampart sets no cookie');
  // A personal token within the role, made on the settings page and shown once.
  await page.goto(`${url}/console#/settings`);
  const own = page.getByRole('region', { name: 'Your API tokens' });
  await own.getByLabel('Name').fill('laptop-cli');
  await own.getByLabel('scan:write').check();
  t.is(await own.getByLabel('webhooks:manage').count(), 0, 'only the scopes the role holds are offered');
  await own.getByRole('button', { name: 'Make the token' }).click();
  const personal = await page.getByTestId('secret-once').innerText();
  t.regex(personal, /^rmp_/);
  t.deepEqual(await capture(page, 'sso', 'personal-tokens'), []);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await own.getByTestId('personal-tokens').getByText('laptop-cli').waitFor();
  const made = await call(personal, 'GET', '/api/user/me');
  t.deepEqual(made.body.data.token.scopes.sort(), ['findings:read', 'scan:write']);
  t.is((await call(personal, 'POST', '/api/webhooks', { name: 'x', url: 'https://127.0.0.1:9/x', events: ['finding.new'] })).status, 403);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Rampart' }).waitFor();
  t.is((await call(token!, 'GET', '/api/user/me')).status, 401, 'signing out revoked the SSO login token');
  t.is((await call(personal, 'GET', '/api/user/me')).status, 200, 'the personal token stays');
  t.deepEqual(problems, []);
  await context.close();
});

run('a user in no mapped group gets no access and a clear message; nothing is created', async (t) => {
  const { page, context, problems } = await browser.newPage();
  const users = async () => (await call(server.adminToken, 'GET', `/api/admin/tenants/${acme}/users`)).body.meta.total;
  const before = await users();
  t.is(before, 1, 'alice, from the first test');
  await throughProvider(page, 'mallory');
  const notice = page.locator('.notice');
  await notice.waitFor();
  t.regex(await notice.innerText(), /none of your groups gives access to Rampart/);
  t.is(await page.evaluate(STORED_TOKEN), null);
  t.is(await users(), before);
  t.deepEqual(await capture(page, 'sso', 'no-access'), []);
  t.deepEqual(problems, []);
  await context.close();
});
