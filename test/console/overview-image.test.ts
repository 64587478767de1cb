import test from 'ava';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../_helpers/harness/spawn-service.ts';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedFindings, seedTenant, startConsoleServer, type ConsoleServer } from '../_helpers/console/console-server.ts';

// The overview of a seeded tenant, as docs/design/console.md shows it. With RAMPART_UPDATE_README_IMAGE=1
// this also rewrites docs/images/console-overview.png (1280 px wide), so the picture always
// comes from a real run of the current console:
//   RAMPART_UPDATE_README_IMAGE=1 npx ava test/console/overview-image.test.ts

const up = browserAvailable();
const run = up ? test.serial : test.skip;
const IMAGE = join(ROOT, 'docs', 'images', 'console-overview.png');

let server: ConsoleServer;
let browser: ConsoleBrowser;

if (up) {
  test.before(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchBrowser()]);
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
  });
}

run('the overview of a seeded tenant (the README picture)', async (t) => {
  const tenant = await seedTenant(server, 'acme-security');
  const { findings } = await seedFindings(server, tenant.token, 40);
  // Some triage, so the statuses and the trend are not all "open".
  for (const [i, status] of ['confirmed', 'resolved', 'resolved', 'false_positive', 'accepted_risk', 'confirmed'].entries()) {
    await server.call(tenant.token, 'PUT', `/api/findings/${findings[i]!.id}/status`, { status, note: 'Triaged for the picture.' });
  }
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  const tiles = page.getByTestId('open-by-severity');
  await tiles.getByText('critical').waitFor();
  await page.getByTestId('riskiest-assets').locator('tbody tr').first().waitFor();
  t.regex(await page.getByTestId('riskiest-assets').innerText(), /shop\.example\.com/);
  t.deepEqual(await capture(page, 'overview', 'overview-seeded'), []);
  if (process.env.RAMPART_UPDATE_README_IMAGE === '1') {
    mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: IMAGE, fullPage: false });
    t.log(`wrote ${IMAGE}`);
  }
  t.deepEqual(problems, []);
  await context.close();
});
