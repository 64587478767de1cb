import test from 'ava';
import { browserAvailable, capture, launchBrowser, signInWithToken, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';

// Actions and approvals in a real browser: the trigger form generated from the parameter
// schema (a secret as a password field that sets the credential and is never echoed), a dry
// run showing the plan, a run that waits for an approval, the approval answered with a
// comment from the inbox by another person, and the run completing.

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let actionId: string;
const SECRET = 'firewall-api-key-7f3a9c21';

if (up) {
  test.before(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
    tenant = await seedTenant(server);
    await server.call(tenant.token, 'POST', '/api/assets', { name: 'edge.example.com', type: 'domain' });
    actionId = (await server.call(tenant.token, 'POST', '/api/actions', {
      name: 'approve-block-ip',
      type: 'approval',
      executor: 'local',
      description: 'A person confirms an IP block.',
      parameters: [
        { name: 'ip', type: 'string', required: true, validation: { pattern: '[0-9.]+' }, description: 'the address to block' },
        { name: 'hours', type: 'integer', default: 24, validation: { min: 1, max: 48 } },
        { name: 'notify', type: 'boolean', default: false },
        { name: 'firewall_key', type: 'secret' },
      ],
      config: { required_approvals: 1, message: 'Block {{ ip }} for {{ hours }} hours?' },
    })).data.id;
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
  });
}

run('actions: trigger from the generated form, dry run plan, approve in the inbox with a comment, the run completes', async (t) => {
  const requester = await browser.newPage();
  const { page } = requester;
  await signInWithToken(page, server.url, tenant.token);
  await page.getByRole('link', { name: 'Actions' }).click();
  await page.getByTestId('actions').getByRole('link', { name: 'approve-block-ip' }).click();
  await page.getByRole('heading', { level: 1, name: 'approve-block-ip' }).waitFor();
  const form = page.getByRole('form', { name: 'Trigger the action' });
  t.is(await form.getByLabel('hours').inputValue(), '24');
  t.is(await form.getByLabel('hours').getAttribute('max'), '48');
  const secretField = form.getByLabel(/firewall_key \(secret/);
  t.is(await secretField.getAttribute('type'), 'password');
  await form.getByLabel('ip').fill('203.0.113.7');
  await form.getByLabel('hours').fill('6');
  await secretField.fill(SECRET);

  await form.getByRole('button', { name: 'Dry run' }).click();
  const plan = page.getByTestId('dry-run-plan');
  await plan.waitFor();
  t.regex(await plan.innerText(), /"required_approvals": 1/);
  t.regex(await plan.innerText(), /"executor": "approval"/);
  t.is(await secretField.inputValue(), '');
  t.false((await page.content()).includes(SECRET));
  const credential = (await server.call(tenant.token, 'GET', '/api/credentials/firewall_key')).data;
  t.is(credential.name, 'firewall_key');
  t.false(JSON.stringify(credential).includes(SECRET));
  t.deepEqual(await capture(page, 'actions', 'action-dry-run'), []);

  await form.getByRole('button', { name: 'Trigger', exact: true }).click();
  const result = page.getByTestId('trigger-result');
  await result.waitFor();
  t.regex(await result.innerText(), /waits for an approval/);
  await result.getByRole('link', { name: /^execution / }).click();
  await page.getByRole('heading', { level: 1, name: 'Execution of approve-block-ip' }).waitFor();
  await page.getByTestId('execution-status').getByText('pending').waitFor();

  // Another person (the user, by password) answers in the inbox; the requester's token could not (self_approval).
  const approver = await browser.newPage();
  await approver.page.goto(`${server.url}/console`);
  await approver.page.getByLabel('Email', { exact: true }).fill(tenant.email);
  await approver.page.getByLabel('Password', { exact: true }).fill(tenant.password);
  await approver.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await approver.page.getByRole('link', { name: 'Approvals' }).click();
  const card = approver.page.getByTestId('approvals').locator('li.approval').first();
  await card.getByText(/^Block .* hours\?/).waitFor();
  t.deepEqual(await capture(approver.page, 'actions', 'approvals-inbox'), []);
  await card.getByLabel('Comment (kept with the decision)').fill('Confirmed with the network team.');
  await card.getByRole('button', { name: 'Approve' }).click();
  await approver.page.getByText('Nothing waits for a decision.').waitFor();

  // The requester's execution page follows live: completed.
  await page.getByTestId('execution-status').getByText('completed').waitFor();
  const approvals = (await server.call(tenant.token, 'GET', '/api/approvals?status=approved')).data;
  t.is(approvals[0].decisions[0].comment, 'Confirmed with the network team.');
  t.deepEqual(await capture(page, 'actions', 'execution-completed'), []);
  t.deepEqual(requester.problems, []);
  t.deepEqual(approver.problems, []);
  await requester.context.close();
  await approver.context.close();
  t.truthy(actionId);
});
