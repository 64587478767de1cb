import test from 'ava';
import type { FindingReport, ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { cookies } from '../../../scanners/web_app/checks/cookies.ts';
import { directoryListing } from '../../../scanners/web_app/checks/directory-listing.ts';
import { exposedFiles } from '../../../scanners/web_app/checks/exposed-files.ts';
import { securityHeaders } from '../../../scanners/web_app/checks/security-headers.ts';
import { carelessSite, type CarelessSite } from '../../_helpers/targets/careless-site.ts';
import { startHttpTarget, type HttpTarget } from '../../_helpers/targets/http-target.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';

let careless: CarelessSite;
let tidy: CarelessSite;
let carelessServer: HttpTarget;
let tidyServer: HttpTarget;

test.before(async () => {
  careless = carelessSite('careless');
  tidy = carelessSite('tidy');
  carelessServer = await startHttpTarget(careless.handler);
  tidyServer = await startHttpTarget(tidy.handler);
});
test.after.always(() => Promise.all([carelessServer?.close(), tidyServer?.close()]));

async function attempt(check: ScannerCheck, server: HttpTarget, options: Record<string, unknown> = {}) {
  const a = await runCheck(check, urlTarget(`${server.url}/`), { timeoutMs: 20_000, options: { max_depth: 3, max_pages: 20, ...options } });
  if (a.status !== 'completed') throw new Error(`${check.id}: ${a.status} ${a.error}`);
  return a;
}
const run = async (check: ScannerCheck, server: HttpTarget, options: Record<string, unknown> = {}): Promise<FindingReport[]> => (await attempt(check, server, options)).findings;
const byTitle = (found: FindingReport[]) => Object.fromEntries(found.map((f) => [f.title, f]));

test('a database dump the crawl downloaded is reported without any probing, named in the evidence', async (t) => {
  const found = await run(exposedFiles, carelessServer);
  t.deepEqual(found.map((f) => f.title), ['Exposed database dump: /files/dump.sql']);
  t.like(found[0]!.evidence, { file: '/files/dump.sql', kind: 'sql-dump', found_by: 'crawl' });
  t.regex(String(found[0]!.evidence!.response_indicator), /-- MySQL dump; CREATE TABLE users; INSERT INTO users/);
  t.false(JSON.stringify(found).includes('ann@example.test'), 'no row data in the evidence');
  t.deepEqual(await run(exposedFiles, tidyServer), [], 'a KEY= line without a secret name is not a secret');
});

test('with enable_bruteforce the sensitive names are asked for in every directory found: the hidden .env and a .bak of a crawled file', async (t) => {
  const found = await run(exposedFiles, carelessServer, { enable_bruteforce: true });
  const titles = found.map((f) => f.title).sort();
  t.deepEqual(titles, ['Exposed PHP source with credentials: /files/config.php.bak', 'Exposed database dump: /files/dump.sql', 'Exposed environment file with settings and secrets: /files/.env']);
  const env = byTitle(found)['Exposed environment file with settings and secrets: /files/.env']!;
  t.like(env.evidence, { file: '/files/.env', found_by: 'probe', response_indicator: 'APP_ENV=<redacted> DB_PASSWORD=<redacted> STRIPE_SECRET=<redacted>' });
  t.is(env.cvss_vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N');
  t.false(JSON.stringify(found).includes('hunter2') || JSON.stringify(found).includes('sk_live'), 'secret values never reach the evidence');
  t.deepEqual(await run(exposedFiles, tidyServer, { enable_bruteforce: true }), []);
});

test.serial('the probe budget bounds the requests and says what it left out', async (t) => {
  const before = careless.requests.length;
  const a = await attempt(exposedFiles, carelessServer, { enable_bruteforce: true, max_requests: 10 });
  const probes = careless.requests.slice(before).filter((p) => !/^\/(|about|shop\/|shop\/cart|files\/|files\/[a-z]+\.(txt|sql|php))$/.test(p));
  t.is(probes.length, 10);
  t.regex(a.logs.filter((l) => l.level === 'WARN').map((l) => l.message).join('\n'), /request budget of 10 used up: \d+ sensitive-name probe\(s\) not sent/);
});

test.serial('one listing is one finding: Apache sort links are not followed and the location has no query string', async (t) => {
  const before = careless.requests.length;
  const found = await run(directoryListing, carelessServer);
  t.deepEqual(found.map((f) => [f.title, f.location]), [['Directory listing at /files/', `${carelessServer.url}/files/`]]);
  t.deepEqual(careless.requests.slice(before).filter((p) => p.includes('?C=')), [], 'no sort link was requested');
  t.deepEqual(await run(directoryListing, tidyServer), []);
});

test('a cookie set by a linked page is judged, once, with the pages listed; a session cookie over plain HTTP is its own finding', async (t) => {
  const found = byTitle(await run(cookies, carelessServer));
  t.deepEqual(Object.keys(found).sort(), ['Cookie without protective attributes: PHPSESSID', 'Session cookie sent over plain HTTP: PHPSESSID']);
  t.like(found['Cookie without protective attributes: PHPSESSID']!.evidence, { cookie: 'PHPSESSID', missing: ['HttpOnly', 'SameSite'], pages: ['/shop/'], set_cookie: 'PHPSESSID=<redacted>; path=/' });
  t.is(found['Session cookie sent over plain HTTP: PHPSESSID']!.cvss_vector, 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N');
  t.false(JSON.stringify(found).includes('9f8e7d6c'), 'the cookie value is never kept');
  // The tidy twin's cookie has its attributes, but a session cookie over http:// is still sent in clear.
  t.deepEqual((await run(cookies, tidyServer)).map((f) => f.title), ['Session cookie sent over plain HTTP: PHPSESSID']);
});

test('security headers are judged on every HTML page: one finding per missing header, listing the pages without it', async (t) => {
  const found = byTitle(await run(securityHeaders, carelessServer));
  t.deepEqual(Object.keys(found).sort(), [
    'Missing security header: Content-Security-Policy',
    'Missing security header: Referrer-Policy',
    'Missing security header: X-Content-Type-Options: nosniff',
    'Missing security header: X-Frame-Options (or CSP frame-ancestors)',
  ]);
  const csp = found['Missing security header: Content-Security-Policy']!;
  t.deepEqual((csp.evidence!.pages as string[]).sort(), ['/about', '/files/', '/files/config.php', '/shop/', '/shop/cart'], 'the hardened home page is not listed');
  t.is(csp.evidence!.pages_judged, 6);
  t.is(csp.cvss_vector, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N');
  t.is(found['Missing security header: Referrer-Policy']!.cvss_vector, 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N');
  t.is(new Set(Object.values(found).map((f) => f.location)).size, 4, 'each problem has its own location (dedup key)');
  t.deepEqual(await run(securityHeaders, tidyServer), []);
});
