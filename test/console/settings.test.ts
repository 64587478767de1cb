import test from 'ava';
import { createServer, type Server, type Socket } from 'node:net';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { eventually } from '../_helpers/harness/eventually.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Settings in a real browser: a SIEM integration to a loopback syslog collector, tested and
// then forwarding (its cursor status shown); a credential set and rotated as password fields
// and never echoed; API tokens disabled with the reason for a tenant token and managed with
// an admin one; the plugins loaded.

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let collector: Server;
let collectorPort: number;
const sockets = new Set<Socket>();
let received = '';
const waiters: Array<{ text: string; resolve: () => void }> = [];

/** Resolves once the collector has received `text`. */
function collectorSaw(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (received.includes(text)) return resolve();
    waiters.push({ text, resolve });
  });
}

const VALUE = 'siem-collector-secret-4d1e';
const ROTATED = 'siem-collector-secret-9b7f';

if (up) {
  test.before(async () => {
    collector = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
        for (const w of waiters.filter((x) => received.includes(x.text))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    collectorPort = (collector.address() as { port: number }).port;
    [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
    tenant = await seedTenant(server);
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
    for (const socket of sockets) socket.destroy();
    collector?.close();
  });
}

run('settings: a SIEM integration to a loopback collector, tested, then forwarding with its cursor status', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  await page.locator('summary', { hasText: 'New SIEM integration' }).click();
  const form = page.getByRole('form', { name: 'New SIEM integration' });
  await form.getByLabel('Name').fill('Lab collector');
  await form.getByLabel('Protocol').selectOption('tcp');
  await form.getByLabel('Collector host').fill('127.0.0.1');
  await form.getByLabel('Port').fill(String(collectorPort));
  await form.getByLabel('asset.created').check();
  await form.getByRole('button', { name: 'Create integration' }).click();
  const item = page.getByTestId('siem-list').locator('li').first();
  await item.getByText('Lab collector').waitFor();
  t.regex(await item.getByTestId('siem-status').innerText(), /nothing sent yet/);

  await item.getByRole('button', { name: 'Send a test message' }).click();
  await item.getByTestId('siem-test-result').waitFor();
  t.regex(await item.getByTestId('siem-test-result').innerText(), /^Delivered in \d+ ms\.$/);
  await collectorSaw('siem.test');

  // A real event is forwarded; the cursor's status says so.
  await server.call(tenant.token, 'POST', '/api/assets', { name: 'forwarded.example.com', type: 'domain' });
  await collectorSaw('|asset.created|');
  // The forwarder records the send after the collector has the frame: refresh once it has.
  await eventually(async () => ((await server.call(tenant.token, 'GET', '/api/integrations/siem')) as { data: Array<{ status: { last_sent_at: string | null } }> }).data[0]?.status.last_sent_at ?? undefined, 10_000);
  await page.getByRole('button', { name: 'Refresh the status' }).click();
  await item.getByTestId('siem-status').getByText(/last event sent/).waitFor();
  t.deepEqual(await capture(page, 'settings', 'settings-siem'), []);
  t.deepEqual(problems, []);
  await context.close();
});

run('settings: credentials by name only, set and rotated, never echoed; tokens need admin; plugins listed', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/settings`);
  const add = page.getByRole('form', { name: 'New credential' });
  await add.getByLabel('Name').fill('collector_token');
  await add.getByLabel('Value (8 characters or more)').fill(VALUE);
  t.is(await add.getByLabel('Value (8 characters or more)').getAttribute('type'), 'password');
  await add.getByRole('button', { name: 'Add credential' }).click();
  const row = page.getByTestId('credentials').locator('li[data-credential="collector_token"]');
  await row.waitFor();
  t.is(await add.getByLabel('Value (8 characters or more)').inputValue(), '');
  const created = (await server.call(tenant.token, 'GET', '/api/credentials/collector_token')).data;

  await row.getByLabel('New value for collector_token', { exact: true }).fill(ROTATED);
  await row.getByRole('button', { name: 'Set value' }).click();
  await row.getByText('Value replaced.').waitFor();
  t.is(await row.getByLabel('New value for collector_token', { exact: true }).inputValue(), '');
  const rotated = (await server.call(tenant.token, 'GET', '/api/credentials/collector_token')).data;
  t.not(rotated.updated_at, created.updated_at);
  const html = await page.content();
  t.false(html.includes(VALUE));
  t.false(html.includes(ROTATED));

  t.regex(await page.getByTestId('tokens-disabled').innerText(), /needs the admin scope/);
  const plugins = page.getByTestId('plugins');
  await plugins.locator('tbody tr').first().waitFor();
  t.true((await plugins.locator('tbody tr').count()) >= 1);
  t.regex(await plugins.innerText(), /scanner/);
  t.deepEqual(await capture(page, 'settings', 'settings-credentials'), []);
  t.deepEqual(problems, []);
  await context.close();
});

run('settings: with an admin token the tenant\'s tokens are listed, and a new one is shown once', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: server.adminToken });
  await openSignedIn(page, server.url, `/settings`);
  const tokens = page.getByTestId('tokens');
  await tokens.getByText("(this console's token)").waitFor();
  await page.locator('summary', { hasText: 'New API token' }).click();
  await page.getByRole('form', { name: 'New API token' }).getByLabel('Name').fill('ci-reader');
  await page.getByRole('button', { name: 'Issue token' }).click();
  const secret = await page.getByTestId('secret-once').innerText();
  t.true(secret.length > 20);
  await tokens.getByText('ci-reader').waitFor();
  await page.getByRole('button', { name: 'I have stored it' }).click();
  t.false((await page.content()).includes(secret));
  t.deepEqual(await capture(page, 'settings', 'settings-tokens'), []);
  t.deepEqual(problems, []);
  await context.close();
});
