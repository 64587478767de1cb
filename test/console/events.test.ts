import test from 'ava';
import { browserAvailable, capture, hashOf, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// The event stream page in a real browser: a live tail filtered on the server, and pause /
// resume where the resume replays (Last-Event-ID) what happened while paused.

const up = browserAvailable();
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

const addAsset = (name: string) => server.call(tenant.token, 'POST', '/api/assets', { name, type: 'domain' });

run('event stream: live tail with a kind filter; pause, an event meanwhile, resume shows it', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  await page.getByRole('link', { name: 'Event stream' }).click();
  await page.getByRole('heading', { level: 1, name: 'Event stream' }).waitFor();
  await page.getByLabel('asset.created').check();
  await page.waitForFunction(() => (globalThis as any).location.hash.includes('events=asset.created'));
  t.is(hashOf(page), '#/events?events=asset.created');
  const tail = page.getByTestId('event-tail');
  const state = page.getByTestId('tail-state');
  await page.locator('[data-testid="tail-state"][data-state="live"]').waitFor();

  await addAsset('first.example.com');
  await tail.getByText('first.example.com', { exact: true }).waitFor();
  // A finding would be another kind: the filter keeps the tail to asset.created.
  t.is(await tail.locator('li.event-row').count(), 1);
  t.is(await tail.locator('li.event-row').first().getAttribute('data-kind'), 'asset.created');
  t.deepEqual(await capture(page, 'events', 'events-live'), []);

  await page.getByRole('button', { name: 'Pause' }).click();
  await page.locator('[data-testid="tail-state"][data-state="paused"]').waitFor();
  t.regex(await state.innerText(), /Paused/);
  await addAsset('while-paused.example.com');
  // Paused is closed: nothing arrives (checked after the API call returned, when the event is stored).
  t.is(await tail.getByText('while-paused.example.com', { exact: true }).count(), 0);
  t.deepEqual(await capture(page, 'events', 'events-paused'), []);

  await page.getByRole('button', { name: 'Resume' }).click();
  await tail.getByText('while-paused.example.com', { exact: true }).waitFor();
  await page.locator('[data-testid="tail-state"][data-state="live"]').waitFor();
  t.is(await tail.locator('li.event-row').count(), 2);
  await addAsset('after-resume.example.com');
  await tail.getByText('after-resume.example.com', { exact: true }).waitFor();
  t.deepEqual(problems, []);
  await context.close();
});
