import test from 'ava';
import { createServer, type Server } from 'node:http';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Webhooks in a real browser: the spec's case — a delivery to a receiver that fails is shown
// failed with its response code, retried by hand, and shown delivered once the receiver is
// back; the secret is write-only and a rotated one is shown exactly once.

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let receiver: Server;
let receiverUrl: string;
const receiverState = { status: 500, bodies: [] as string[], teams: [] as Array<string | undefined> };

if (up) {
  test.before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        receiverState.bodies.push(body);
        receiverState.teams.push(req.headers['x-team'] as string | undefined);
        res.statusCode = receiverState.status;
        res.end(receiverState.status === 200 ? 'ok' : 'receiver down');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    // The receiver is plain http on loopback, as an operator's lab would allow.
    [server, browser] = await Promise.all([startConsoleServer({ RAMPART__outbound__requireHttps: 'false' }), launchBrowser()]);
    tenant = await seedTenant(server);
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
    receiver?.closeAllConnections();
    receiver?.close();
  });
}

run('webhooks: create, a failed delivery with its response code, retry by hand, delivered', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  await page.getByText('New webhook').click();
  const form = page.getByRole('form', { name: 'New webhook' });
  await form.getByLabel('Name').fill('SOC receiver');
  await form.getByLabel('Endpoint URL').fill(receiverUrl);
  await form.getByLabel('Signing secret').fill('initial-secret-0123456789');
  await form.getByLabel('webhook.test').check();
  await form.getByRole('button', { name: 'Add a header' }).click();
  await form.getByLabel('Header 1 name').fill('X-Team');
  await form.getByLabel('Header 1 value').fill('soc-blue-credential');
  await form.getByRole('button', { name: 'Create webhook' }).click();
  await page.getByRole('heading', { level: 1, name: 'SOC receiver' }).waitFor();
  t.regex(await page.locator('dl.facts').innerText(), /set \(never shown\)/);
  t.false((await page.content()).includes('initial-secret-0123456789'));
  t.false((await page.content()).includes('soc-blue-credential'), 'a header value is write-only');

  // The receiver answers 500: the test delivery fails with that code.
  await page.getByRole('button', { name: 'Send a test' }).click();
  await page.getByTestId('test-result').waitFor();
  t.regex(await page.getByTestId('test-result').innerText(), /failed, HTTP 500/);
  const row = page.getByTestId('deliveries').locator('tbody tr').first();
  await row.getByText('HTTP 500', { exact: true }).waitFor();
  t.regex(await row.innerText(), /failed/i);
  await row.getByText('1 attempt').click();
  await row.getByText(/Attempt 1: failure · HTTP 500/).waitFor();
  t.deepEqual(await capture(page, 'webhooks', 'webhook-failed'), []);

  // The receiver is back; retry by hand: a new round, delivered.
  receiverState.status = 200;
  await row.getByRole('button', { name: /^Retry delivery dlv_/ }).click();
  await row.locator('.badge', { hasText: 'delivered' }).waitFor();
  t.regex(await row.innerText(), /HTTP 200/);
  t.is(receiverState.bodies.length, 2);
  t.deepEqual(receiverState.teams, ['soc-blue-credential', 'soc-blue-credential'], 'the custom header went with every delivery');
  const hookId = new URL(page.url()).hash.split('/')[2]!;
  const deliveries = (await server.call(tenant.token, 'GET', `/api/webhooks/${hookId}/deliveries`)).data;
  t.is(deliveries[0].status, 'delivered');
  t.deepEqual(await capture(page, 'webhooks', 'webhook-delivered'), []);
  t.deepEqual(problems, []);
  await context.close();
});

run('webhooks: the rotated secret is shown once; edit keeps the secret unless a new one is set; recover a range', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  const hook = (await server.call(tenant.token, 'GET', '/api/webhooks')).data[0];
  await openSignedIn(page, server.url, `/webhooks/${hook.id}`);
  await page.getByRole('heading', { level: 1, name: 'SOC receiver' }).waitFor();

  await page.locator('summary', { hasText: 'Rotate the secret' }).click();
  await page.getByRole('button', { name: 'Rotate the secret' }).click();
  const secret = await page.getByTestId('secret-once').innerText();
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.truthy((await server.call(tenant.token, 'GET', `/api/webhooks/${hook.id}`)).data.secret_rotation_ends_at);
  t.deepEqual(await capture(page, 'webhooks', 'webhook-rotated'), []);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  t.false((await page.content()).includes(secret));
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'SOC receiver' }).waitFor();
  t.false((await page.content()).includes(secret));

  await page.locator('summary', { hasText: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit webhook' });
  t.is(await edit.getByLabel('Set a new secret').inputValue(), '');
  await edit.getByLabel('Name').fill('SOC receiver (prod)');
  t.regex(await edit.locator('fieldset.header-fields').innerText(), /X-Team \(values never shown\)/);
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await page.getByRole('heading', { level: 1, name: 'SOC receiver (prod)' }).waitFor();
  let saved = (await server.call(tenant.token, 'GET', `/api/webhooks/${hook.id}`)).data;
  t.true(saved.has_secret);
  t.deepEqual(saved.header_names, ['X-Team'], 'an edit that does not touch the headers keeps them');

  // Replacing the headers: the names come back, values are typed again; one renamed, one added.
  await edit.getByRole('button', { name: 'Replace the custom headers' }).click();
  t.is(await edit.getByLabel('Header 1 name').inputValue(), 'X-Team');
  t.is(await edit.getByLabel('Header 1 value').inputValue(), '');
  await edit.getByLabel('Header 1 name').fill('X-Squad');
  await edit.getByLabel('Header 1 value').fill('squad-7');
  await edit.getByRole('button', { name: 'Add a header' }).click();
  await edit.getByLabel('Header 2 name').fill('Authorization');
  await edit.getByLabel('Header 2 value').fill('Bearer collector-token-42');
  t.deepEqual(await capture(page, 'webhooks', 'webhook-replace-headers'), []);
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await page.locator('dl.facts', { hasText: 'X-Squad' }).waitFor();
  saved = (await server.call(tenant.token, 'GET', `/api/webhooks/${hook.id}`)).data;
  t.deepEqual([...saved.header_names].sort(), ['Authorization', 'X-Squad']);
  t.false((await page.content()).includes('collector-token-42'));
  // A header value the API refuses (not HTTP header text) is named, nothing changes.
  await edit.getByRole('button', { name: 'Replace the custom headers' }).click();
  await edit.getByLabel('Header 1 value').fill('squad…7');
  await edit.getByLabel('Header 2 value').fill('Bearer x');
  await edit.getByRole('button', { name: 'Save webhook' }).click();
  await edit.getByRole('alert').waitFor();
  t.regex(await edit.getByRole('alert').innerText(), /headers/);
  t.deepEqual([...(await server.call(tenant.token, 'GET', `/api/webhooks/${hook.id}`)).data.header_names].sort(), ['Authorization', 'X-Squad']);

  await page.locator('summary', { hasText: 'Recover failed deliveries' }).click();
  await page.getByLabel('Failed since (your local time)').fill('2020-01-01T00:00');
  await page.getByRole('button', { name: 'Resend failed deliveries' }).click();
  await page.getByText(/deliver(y|ies) queued again/).waitFor();
  t.deepEqual(problems, []);
  await context.close();
});
