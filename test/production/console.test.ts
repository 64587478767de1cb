import test from 'ava';
import { browserAvailable, launchBrowser, signInWithToken, type ConsoleBrowser } from '../_helpers/console/browser.ts';
import { startProduction, type ProductionServer } from '../_helpers/console/production-start.ts';

// Issue 24, defect 1: under `npm start` the console served its HTML but 404'd every file it
// references, so a browser showed only "Loading the Rampart console…". Here the console is
// opened exactly as a user does after `npm ci && npm start`: every file the page references
// answers 200, and in chromium sign-in and every page render with no 404, no console
// error and no CSP violation.

let server: ProductionServer;

test.before(async () => {
  server = await startProduction();
});
test.after.always(async () => {
  await server?.stop();
});

/** Every same-origin URL the console's HTML names (link href, script src, import map entries). */
function referencedFiles(html: string): string[] {
  const urls = [...html.matchAll(/\s(?:href|src)="(\/[^"]+)"/g)].map((m) => m[1]!);
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (map) urls.push(...Object.values((JSON.parse(map) as { imports: Record<string, string> }).imports));
  return [...new Set(urls)];
}

test.serial('every file the console HTML references answers 200 under the compiled start', async (t) => {
  const page = await fetch(`${server.url}/console`);
  t.is(page.status, 200);
  const files = referencedFiles(await page.text());
  t.true(files.includes('/console/app/main.js') && files.includes('/console/styles/console.css') && files.includes('/console/favicon.svg'), files.join(' '));
  t.true(files.some((f) => f.startsWith('/console/vendor/')));
  for (const file of files) t.is((await fetch(`${server.url}${file}`)).status, 200, file);
  // The browsable API docs serve their files by the same rule.
  for (const file of ['/docs', '/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/api/openapi.json']) {
    t.is((await fetch(`${server.url}${file}`)).status, 200, file);
  }
});

const up = browserAvailable();
let browser: ConsoleBrowser | undefined;
test.after.always(async () => {
  await browser?.close();
});

(up ? test.serial : test.skip)('in chromium: sign-in and every page render with no 404, no console error and no CSP violation', async (t) => {
  browser = await launchBrowser();
  const { page, context, problems } = await browser.newPage();
  const failures: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failures.push(`console error: ${message.text()}`);
  });
  await signInWithToken(page, server.url, server.adminToken);
  const menu = page.getByRole('navigation', { name: 'Main' });
  const links = await menu.getByRole('link').evaluateAll((as) => as.map((a) => (a as unknown as { getAttribute(n: string): string }).getAttribute('href')));
  t.true(links.length >= 10, links.join(' '));
  for (const href of links) {
    await page.goto(`${server.url}/console${href}`);
    await page.locator('main h1').first().waitFor();
    await page.waitForFunction(() => !(globalThis as any).document.querySelector('main .loading'), undefined, { timeout: 30_000 });
    t.deepEqual(await page.getByRole('alert').allInnerTexts(), [], href);
  }
  t.deepEqual(failures, []);
  t.deepEqual(problems, []);
  await context.close();
});
