import test from 'ava';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Playbooks in a real browser: the steps drawn as a flow, a dry run drawn on it, a run by
// hand watched live until every step completed, the CACAO export downloaded, and an import
// previewed (refused while the name is taken; nothing written) before it is imported.

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let receiver: Server;
const received: string[] = [];
let playbookId: string;

if (up) {
  test.before(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        received.push(body);
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/soc`;
    [server, browser] = await Promise.all([startConsoleServer({ RAMPART__outbound__requireHttps: 'false' }), launchBrowser()]);
    tenant = await seedTenant(server);
    await server.call(tenant.token, 'POST', '/api/actions', {
      name: 'notify-soc', type: 'webhook', executor: 'webhook',
      config: { url, method: 'POST', headers: {}, body_template: '{"from":"rampart"}' },
    });
    playbookId = (await server.call(tenant.token, 'POST', '/api/playbooks', {
      name: 'contain-and-tell', version: '1.0.0', description: 'Tell the SOC twice.',
      trigger: { event: 'manual' },
      steps: [
        { id: 'first', name: 'Tell the SOC', type: 'action', action_ref: 'notify-soc', on_success: 'second' },
        { id: 'second', name: 'Tell them again', type: 'action', action_ref: 'notify-soc' },
      ],
    })).data.id;
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
    receiver?.closeAllConnections();
    receiver?.close();
  });
}

run('playbooks: the flow, a dry run, a run watched live, CACAO export and an import preview', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  await page.getByRole('link', { name: 'Playbooks' }).click();
  await page.getByTestId('playbooks').getByRole('link', { name: 'contain-and-tell' }).click();
  await page.getByRole('heading', { level: 1, name: 'contain-and-tell' }).waitFor();
  const flow = page.getByRole('list', { name: 'Steps of contain-and-tell' });
  t.is(await flow.locator(':scope > li').count(), 2);
  t.regex(await flow.locator('li[data-step="first"]').innerText(), /start · action[\s\S]*Tell the SOC[\s\S]*on success → Tell them again/i);
  t.regex(await flow.locator('li[data-step="second"]').innerText(), /on success → end/);

  await page.getByRole('button', { name: 'Dry run' }).click();
  const walk = page.getByTestId('playbook-dry-run');
  await walk.getByText('the run would end completed', { exact: false }).waitFor();
  t.is(await walk.locator('li[data-step="second"]').getAttribute('data-state'), 'completed');
  t.is(received.length, 0);
  t.deepEqual(await capture(page, 'playbooks', 'playbook-dry-run'), []);

  // Export: a download of the CACAO document.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export as CACAO v2' }).click()]);
  t.is(download.suggestedFilename(), 'contain-and-tell.cacao.json');
  const cacao = JSON.parse(await readFile((await download.path())!, 'utf8'));
  t.is(cacao.type, 'playbook');
  t.is(cacao.spec_version, 'cacao-2.0');

  // Run by hand and watch the steps complete.
  await page.getByRole('button', { name: 'Run now' }).click();
  await page.getByRole('heading', { level: 1, name: 'Run of contain-and-tell' }).waitFor();
  await page.getByTestId('run-status').getByText('completed').waitFor();
  const runFlow = page.getByRole('list', { name: 'Steps of this run with their states' });
  await runFlow.locator('li[data-step="second"][data-state="completed"]').waitFor();
  t.is(await runFlow.locator('li[data-step="first"]').getAttribute('data-state'), 'completed');
  t.is(received.length, 2);
  t.deepEqual(await capture(page, 'playbooks', 'playbook-run'), []);

  // Import the export back (as after a deletion): preview first (nothing written), then import.
  await page.goto(`${server.url}/console#/playbooks`);
  await page.locator('summary', { hasText: 'Import a CACAO v2 playbook' }).click();
  await page.getByLabel('Or paste the document').fill(JSON.stringify(cacao));
  // The name is the original's, still taken: the preview says so, as the import would.
  await page.getByRole('button', { name: 'Preview the import' }).click();
  const importPanel = page.locator('details', { hasText: 'Import a CACAO v2 playbook' });
  await importPanel.getByRole('alert').waitFor();
  t.regex(await importPanel.getByRole('alert').innerText(), /A playbook named "contain-and-tell" already exists/);
  await server.call(tenant.token, 'DELETE', `/api/playbooks/${playbookId}`);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  const preview = page.getByTestId('import-preview');
  await preview.waitFor();
  t.regex(await preview.innerText(), /Playbook\s+contain-and-tell 1\.0\.0/);
  t.regex(await preview.innerText(), /Actions it reuses\s+notify-soc/);
  t.is(await preview.getByRole('list', { name: 'Steps of the imported playbook' }).locator(':scope > li').count(), 2);
  t.is((await server.call(tenant.token, 'GET', '/api/playbooks')).meta.total, 0, 'the preview wrote nothing');
  t.deepEqual(await capture(page, 'playbooks', 'playbook-import-preview'), []);
  await preview.getByRole('button', { name: 'Import it' }).click();
  await page.getByRole('heading', { level: 1, name: 'contain-and-tell' }).waitFor();
  const imported = (await server.call(tenant.token, 'GET', '/api/playbooks')).data;
  t.is(imported.length, 1);
  t.not(imported[0].id, playbookId);
  t.true(page.url().endsWith(`/playbooks/${imported[0].id}`));
  t.deepEqual(problems, []);
  await context.close();
});
