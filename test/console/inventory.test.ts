import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { browserAvailable, capture, launchBrowser, openSignedIn, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { seedTenant, startConsoleServer, type ConsoleServer, type SeededTenant } from '../_helpers/console/console-server.ts';
import { writeProject, type SmallProject } from '../_helpers/inventory/sbom-generators.ts';

// The software inventory in a real browser: an SBOM made by npm uploaded from the asset
// page, the components listed, and "where do we run X" answered across assets.

const up = browserAvailable();
const run = up ? test.serial : test.skip;

let server: ConsoleServer;
let browser: ConsoleBrowser;
let tenant: SeededTenant;
let project: SmallProject;
let sbomFile: string;
const assets: Array<{ id: string; name: string }> = [];

if (up) {
  test.before(async () => {
    [server, browser, project] = await Promise.all([
      startConsoleServer(),
      launchBrowser(),
      writeProject('shop-api', '2.0.0', [{ name: 'debug' }, { name: 'ms' }, { name: 'semver' }], ['debug', 'semver']),
    ]);
    tenant = await seedTenant(server, 'inventory');
    for (const name of ['shop.example.com', 'api.example.com']) assets.push((await server.call(tenant.token, 'POST', '/api/assets', { name, type: 'domain' })).data);
    sbomFile = join(project.dir, 'bom.cdx.json');
    await writeFile(sbomFile, await project.npmSbom('cyclonedx'));
    // The second asset's inventory comes through the API, as a CI job would send it.
    const spdx = await project.npmSbom('spdx');
    const res = await fetch(`${server.url}/api/assets/${assets[1]!.id}/sbom`, { method: 'POST', headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/spdx+json' }, body: spdx });
    if (!res.ok) throw new Error(await res.text());
  });
  test.after.always(async () => {
    await browser?.close();
    await server?.stop();
    await project?.remove();
  });
}

run('an SBOM uploaded on the asset page becomes its inventory, and "where do we run" finds every asset carrying a package', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url, `/assets/${assets[0]!.id}`);
  await page.getByRole('heading', { name: 'Software inventory' }).waitFor();
  await page.getByText('No inventory yet').waitFor();
  await page.getByLabel('SBOM file (CycloneDX 1.4–1.6 or SPDX 2.3, JSON)').setInputFiles(sbomFile);
  await page.getByRole('button', { name: 'Upload SBOM' }).click();
  const report = page.getByTestId('sbom-report');
  await report.waitFor();
  t.regex(await report.innerText(), /Recorded 3 components from a CycloneDX 1\.5 document: 3 added/);
  const table = page.getByRole('table', { name: 'Components' });
  await table.waitFor();
  t.regex(await table.innerText(), /debug\s+4\.4\.3\s+pkg:npm\/debug@4\.4\.3\s+MIT\s+yes/);
  t.regex(await table.innerText(), /ms\s+2\.1\.3\s+pkg:npm\/ms@2\.1\.3\s+MIT\s+no/);
  await page.getByText('debug added 4.4.3').waitFor();
  t.deepEqual(await capture(page, 'inventory', 'asset-inventory'), []);

  // From the package URL to every asset running it.
  await page.getByRole('link', { name: 'pkg:npm/debug@4.4.3' }).click();
  await page.getByRole('heading', { name: 'Where do we run…', level: 1 }).waitFor();
  const answer = page.getByRole('table', { name: /Assets running/ });
  await answer.waitFor();
  t.regex(await page.getByTestId('where-summary').innerText(), /2 components on 2 assets/);
  t.regex(await answer.innerText(), /shop\.example\.com\s+debug\s+4\.4\.3/);
  t.regex(await answer.innerText(), /api\.example\.com\s+debug\s+4\.4\.3/);
  t.deepEqual(await capture(page, 'inventory', 'where-do-we-run'), []);

  // Asked by name in the search box; the answer is a link (the question is in the URL).
  await page.getByLabel('Package URL or component name').fill('SEMVER');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.waitForURL(/q=SEMVER/);
  await page.getByRole('table', { name: 'Assets running SEMVER' }).waitFor();
  t.is(await page.getByRole('table', { name: 'Assets running SEMVER' }).locator('tbody tr').count(), 2);
  await page.getByLabel('Package URL or component name').fill('pkg:npm/left-pad');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByText('No asset\'s inventory holds pkg:npm/left-pad.').waitFor();

  // A component's page: its dependencies both ways, and its findings (none here).
  await page.goto(`${server.url}/console#/components?q=pkg%3Anpm%2Fms`);
  await page.getByRole('table', { name: /Assets running/ }).getByRole('link', { name: 'ms' }).first().click();
  await page.getByRole('heading', { name: /^ms 2\.1\.3/, level: 1 }).waitFor();
  t.regex(await page.getByRole('region', { name: 'Dependencies' }).innerText(), /Depended on by:\s+debug 4\.4\.3/);
  t.regex(await page.getByRole('region', { name: 'Findings that concern it' }).innerText(), /None/);
  t.deepEqual(await capture(page, 'inventory', 'component'), []);
  t.deepEqual(problems, []);
  await context.close();
});

run('a malformed SBOM is refused on the page with where it broke, and the inventory stays', async (t) => {
  const { page, context, problems } = await browser.newPage({ signedInAs: tenant.token });
  await openSignedIn(page, server.url);
  const truncated = join(project.dir, 'truncated.json');
  const full = await project.npmSbom('cyclonedx');
  await writeFile(truncated, full.slice(0, Math.floor(full.length / 2)));
  await page.goto(`${server.url}/console#/assets/${assets[1]!.id}`);
  await page.getByRole('table', { name: 'Components' }).waitFor();
  await page.getByLabel('SBOM file (CycloneDX 1.4–1.6 or SPDX 2.3, JSON)').setInputFiles(truncated);
  await page.getByRole('button', { name: 'Upload SBOM' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  t.regex(await alert.innerText(), /invalid_sbom/);
  t.regex(await alert.innerText(), /line \d+, column \d+/);
  t.is(await page.getByRole('table', { name: 'Components' }).locator('tbody tr').count(), 3);
  t.deepEqual(problems, []);
  await context.close();
});
