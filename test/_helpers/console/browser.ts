import test from 'ava';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '../harness/spawn-service.ts';

export const CHROMIUM = process.env.RAMPART_CHROMIUM ?? '/usr/bin/chromium';
/** Where screenshots go (git-ignored; `.ci/run` prints it). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results', 'console');
const AXE = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');
/** Where console/lib/session.js keeps the signed-in token. */
const TOKEN_KEY = 'rampart.console.token';
let axeSource: string | undefined;

/**
 * Whether the browser tests can run: Debian's chromium must be installed (`.ci/run`
 * installs it). Without it they are skipped with a warning, except in CI
 * (RAMPART_REQUIRE_SERVICES), where its absence is a failed test.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.RAMPART_REQUIRE_SERVICES) {
    test('chromium is installed', (t) => t.fail(`${CHROMIUM} is missing; CI needs it (apt-get install chromium)`));
  } else {
    console.warn(`${CHROMIUM} is missing: the console browser tests are skipped here (CI runs them; apt-get install chromium)`);
  }
  return false;
}

export interface ConsoleBrowser {
  browser: Browser;
  /**
   * A fresh context (its own sessionStorage) at 1280 px wide, with CSP reports collected.
   * With `signedInAs`, the tab starts signed in with that API token: it is put in the tab's
   * sessionStorage before the console's first load, where a sign-in would have left it (the
   * UI sign-in costs ~2 s a test; test/console/sign-in.test.ts checks that path itself).
   */
  newPage(options?: { signedInAs?: string }): Promise<ConsolePage>;
  close(): Promise<void>;
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Content-Security-Policy violations and uncaught page errors seen so far. */
  problems: string[];
}

export async function launchBrowser(): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  return {
    browser,
    async newPage(options) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
      if (options?.signedInAs) {
        // Once per tab: a later sign-out must stay signed out across reloads.
        await context.addInitScript(([key, token]) => {
          const storage = (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void } }).sessionStorage;
          if (storage.getItem('rampart.test.seeded') !== null) return;
          storage.setItem('rampart.test.seeded', '1');
          storage.setItem(key, token);
        }, [TOKEN_KEY, options.signedInAs] as const);
      }
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (/Content[- ]Security[- ]Policy|Trusted Type/i.test(message.text())) problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      return { page, context, problems };
    },
    close: () => browser.close(),
  };
}

interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is now; returns the serious and critical
 * violations (the tests require none), each as one readable line.
 */
async function accessibilityProblems(page: Page): Promise<string[]> {
  // Loaded only into the page states checked, not parsed on every navigation. Evaluated by
  // the browser's debugger protocol, so the page's CSP (no inline scripts) is not loosened for it.
  if (!(await page.evaluate(() => 'axe' in globalThis))) {
    axeSource ??= readFileSync(AXE, 'utf8');
    await page.evaluate(axeSource);
  }
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')})`);
}

/**
 * The page at 1280 and at 390 px wide: a full-page screenshot of each
 * (`<SCREENSHOT_DIR>/<folder>/<name>-<width>.png`) and axe-core's serious or critical
 * violations at each width (the tests require none), returned as readable lines.
 */
export async function capture(page: Page, folder: string, name: string): Promise<string[]> {
  const dir = join(SCREENSHOT_DIR, folder);
  mkdirSync(dir, { recursive: true });
  const original = page.viewportSize() ?? { width: 1280, height: 900 };
  const problems: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
    for (const problem of await accessibilityProblems(page)) problems.push(`${name} at ${width} px: ${problem}`);
  }
  await page.setViewportSize(original);
  return problems;
}

/** Opens the console and signs in with an API token, as a user pasting it would. */
export async function signInWithToken(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('API token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Use this token' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

/**
 * Opens the console in a tab made with `newPage({ signedInAs })` and waits until it has checked
 * the stored token: without `path`, at the overview (where a sign-in lands); with one (the part
 * after `#`), straight at that view, showing the signed-in shell.
 */
export async function openSignedIn(page: Page, url: string, path?: string): Promise<void> {
  if (path === undefined) {
    await page.goto(`${url}/console`);
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    return;
  }
  await page.goto(`${url}/console#${path}`);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** The part of the URL after `#`, decoded: what the console keeps its view in. */
export function hashOf(page: Page): string {
  return decodeURIComponent(new URL(page.url()).hash);
}
