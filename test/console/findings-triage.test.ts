import test from 'ava';
import { startTcpProxy } from '../_helpers/console/tcp-proxy.ts';
import { browserAvailable, capture, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import type { ConsoleServer, SeededTenant } from '../_helpers/console/console-server.ts';
import { startFindingsConsole, type FindingsConsole } from '../_helpers/console/findings-console.ts';

// Findings in a real browser: keyboard and bulk triage, the finding's page with the CVSS
// explanation, and the live stream's reconnect (the setup of findings.test.ts).

/** Waits for the keyboard cursor to reach a row (a key press renders on the next frame) and returns its id. */
async function cursorOn(page: import('playwright-core').Page, id: string | null | undefined): Promise<string | null> {
  await page.locator(`tr.cursor-row[data-id="${id}"]`).waitFor({ timeout: 10_000 }).catch(() => undefined);
  return page.locator('tr.cursor-row').getAttribute('data-id');
}

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let fixture: FindingsConsole;
let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let seeded: FindingsConsole['seeded'];

if (up) {
  test.before(async () => {
    fixture = await startFindingsConsole();
    ({ server, browser, tenant, seeded } = fixture);
  });
  test.after.always(async () => {
    await fixture?.stop();
  });
}

const api = (path: string) => server.call(tenant.token, 'GET', path);

run('findings: keyboard triage (j/k, a key per status, a note) and bulk triage', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/findings?status=open&sort_by=title&sort_order=asc`);
  await page.getByTestId('findings').waitFor();
  // The list the URL asks for (sorted by title), not a list rendered before the URL's query applied.
  await page.waitForFunction(() => {
    const titles = [...(globalThis as any).document.querySelectorAll('[data-testid="findings"] tbody tr td:nth-child(4)')].map((c: any) => c.innerText as string);
    return titles.length > 1 && titles.every((x, i) => i === 0 || titles[i - 1]!.localeCompare(x) <= 0);
  });
  // The live stream is connected first (its connection can reload the list), then the rows
  // are read once they stay the same for a moment.
  await page.getByText('Live', { exact: true }).waitFor();
  const rowIds = () => page.locator('[data-testid="findings"] tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
  let ids = await rowIds();
  for (let tries = 0; tries < 40; tries++) {
    await page.waitForTimeout(250);
    const again = await rowIds();
    if (JSON.stringify(again) === JSON.stringify(ids)) break;
    ids = again;
  }
  // Each key is checked as a user sees it: the cursor moved before the next key.
  await page.keyboard.press('j');
  t.is(await cursorOn(page, ids[0]), ids[0]);
  await page.keyboard.press('j');
  t.is(await cursorOn(page, ids[1]), ids[1]);
  await page.keyboard.press('k');
  t.is(await cursorOn(page, ids[0]), ids[0]);
  await page.keyboard.press('j');
  t.is(await cursorOn(page, ids[1]), ids[1]);
  await page.keyboard.press('f');
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  t.regex(await dialog.innerText(), /Mark as false positive/);
  t.deepEqual(await capture(page, 'findings', 'triage-dialog'), []);
  await page.keyboard.type('Only reachable from the VPN');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  // The cursor moved on to the next finding; the triaged row says what it became.
  t.is(await cursorOn(page, ids[2]), ids[2]);
  await page.locator(`tr[data-id="${ids[1]}"]`, { hasText: /false positive/i }).waitFor();
  const triaged = (await api(`/api/findings/${ids[1]}`)).data;
  t.is(triaged.status, 'false_positive');
  t.is(triaged.notes.at(-1).text, 'Only reachable from the VPN');
  // Escape cancels without a change.
  await page.keyboard.press('r');
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  t.is((await api(`/api/findings/${ids[2]}`)).data.status, 'open');

  // Bulk: x selects the cursor row, checkboxes select others.
  await page.keyboard.press('x');
  await page.getByRole('checkbox', { name: `Select ${await page.locator(`tr[data-id="${ids[3]}"] td:nth-child(4)`).innerText()}` }).check();
  await page.getByRole('checkbox', { name: `Select ${await page.locator(`tr[data-id="${ids[4]}"] td:nth-child(4)`).innerText()}` }).check();
  await page.getByRole('heading', { name: '3 selected' }).waitFor();
  await page.getByLabel('New status').selectOption('accepted_risk');
  await page.getByLabel('Note', { exact: true }).fill('Accepted by the risk board, ticket RISK-12');
  await page.getByRole('button', { name: 'Apply to 3' }).click();
  await page.locator('[data-bulk="finished"]').waitFor();
  t.regex(await page.locator('[data-bulk="finished"]').innerText(), /3 of 3 changed/);
  for (const id of [ids[2], ids[3], ids[4]]) {
    const f = (await api(`/api/findings/${id}`)).data;
    t.is(f.status, 'accepted_risk', String(id));
    t.is(f.notes.at(-1).text, 'Accepted by the risk board, ticket RISK-12');
  }
  // The list reloaded: the open filter no longer shows them.
  await page.waitForFunction((gone) => !(globalThis as any).document.querySelector(`tr[data-id="${gone}"]`), ids[3]);
  t.deepEqual(await capture(page, 'findings', 'after-bulk-triage'), []);
  t.deepEqual(problems, []);
  await context.close();
});

run('finding detail: evidence, references, CVSS metric by metric, history with the note', async (t) => {
  const finding = seeded.findings[0]!;
  await server.call(tenant.token, 'PUT', `/api/findings/${finding.id}/status`, { status: 'confirmed', note: 'Reproduced on staging' });
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/findings/${finding.id}`);
  await page.getByRole('heading', { name: finding.title, level: 1 }).waitFor();
  const cvss = await page.locator('.cvss-table').innerText();
  for (const words of ['Attack Vector', 'Network', 'Privileges Required', 'None', 'Confidentiality', 'High', 'Total loss of confidentiality']) t.true(cvss.includes(words), words);
  t.regex(await page.locator('#evidence-h').locator('..').innerText(), /' OR 1=1--/);
  t.is(await page.getByRole('link', { name: 'https://owasp.org/Top10/' }).getAttribute('rel'), 'noopener noreferrer');
  t.regex(await page.locator('#history-h').locator('..').innerText(), /open → confirmed[\s\S]*Reproduced on staging/);
  t.deepEqual(await capture(page, 'findings', 'finding-detail'), []);

  // Triage from the detail page.
  await page.getByLabel('Status', { exact: true }).selectOption('resolved');
  await page.getByLabel('Note', { exact: true }).fill('Patched in 4.2.1');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Status set to resolved.').waitFor();
  t.is((await api(`/api/findings/${finding.id}`)).data.status, 'resolved');
  await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-testid="notes"]')?.textContent?.includes('Patched in 4.2.1'));
  t.deepEqual(problems, []);
  await context.close();
});

run('the live stream: a lost connection says so, comes back by itself and resumes with Last-Event-ID', async (t) => {
  const proxy = await startTcpProxy(Number(new URL(server.url).port));
  t.teardown(() => proxy.close());
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  const lastEventIds: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/events/stream')) lastEventIds.push(request.headers()['last-event-id'] ?? '');
  });
  await openSignedIn(page, proxy.url, '/findings');
  await page.getByTestId('findings').waitFor();
  await page.getByText('Live', { exact: true }).waitFor();
  t.false(page.url().includes(tenant.token), 'the stream is not opened with a token in the URL');

  // An event while connected gives the client an id to resume from.
  const asset = seeded.assets[0]!;
  const finding = { asset_id: asset.id, cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' };
  await server.call(tenant.token, 'POST', '/api/findings', { ...finding, title: 'Arrived while connected' });
  await page.getByText(/1 change since this list loaded/).waitFor();

  proxy.cut();
  await page.getByText(/Reconnecting/).waitFor();
  t.is(await page.locator('.stream-status').getAttribute('data-stream'), 'reconnecting');
  // Happens while the browser is cut off: it must arrive once the stream is back.
  await server.call(tenant.token, 'POST', '/api/findings', { ...finding, title: 'Arrived while disconnected' });
  proxy.restore();
  await page.getByText('Live', { exact: true }).waitFor({ timeout: 20_000 });
  await page.getByText(/[23] changes since this list loaded/).waitFor();
  t.true(lastEventIds.length >= 2);
  t.is(lastEventIds[0], '', 'the first connection asks for no replay');
  t.regex(lastEventIds.at(-1)!, /^\d+$/, 'the reconnect sends Last-Event-ID');
  t.deepEqual(problems, []);
  await context.close();
});
