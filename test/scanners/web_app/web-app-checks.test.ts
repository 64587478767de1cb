import test from 'ava';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { cookies, sessionCookieName } from '../../../scanners/web_app/checks/cookies.ts';
import { cors } from '../../../scanners/web_app/checks/cors.ts';
import { directoryListing } from '../../../scanners/web_app/checks/directory-listing.ts';
import { exposedFiles } from '../../../scanners/web_app/checks/exposed-files.ts';
import { mixedContent } from '../../../scanners/web_app/checks/mixed-content.ts';
import { openRedirect } from '../../../scanners/web_app/checks/open-redirect.ts';
import { securityHeaders } from '../../../scanners/web_app/checks/security-headers.ts';
import { traceMethod } from '../../../scanners/web_app/checks/trace-method.ts';
import { versionDisclosure } from '../../../scanners/web_app/checks/version-disclosure.ts';
import { sharedTestCertificates } from '../../_helpers/certificates/certs.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { startTlsTarget, type TlsTarget } from '../../_helpers/targets/tls-target.ts';
import { badSite, goodSite } from '../../_helpers/targets/web-sites.ts';
import { startHttpTarget } from '../../_helpers/targets/http-target.ts';

let bad: TlsTarget;
let good: TlsTarget;

test.before(async () => {
  const { server } = await sharedTestCertificates();
  bad = await startTlsTarget({ cert: server.chainPem, key: server.keyPem }, badSite);
  good = await startTlsTarget({ cert: server.chainPem, key: server.keyPem }, goodSite);
});
test.after.always(() => Promise.all([bad?.close(), good?.close()]));

async function run(check: ScannerCheck, site: TlsTarget, options: Record<string, unknown> = {}) {
  const a = await runCheck(check, urlTarget(`${site.url}/`), { timeoutMs: 15_000, options: { max_depth: 3, max_pages: 10, ...options } });
  if (a.status !== 'completed') throw new Error(`${check.id}: ${a.status} ${a.error}`);
  return a.findings;
}

test('security-headers: a page served without Content-Type whose body is HTML is judged as HTML (browsers sniff it)', async (t) => {
  const sniffed = await startHttpTarget((_req, res) => {
    res.removeHeader('content-type');
    res.end('\n  <!DOCTYPE html><html><head><title>x</title></head><body>hi</body></html>');
  });
  const notHtml = await startHttpTarget((_req, res) => res.end('{"ok":true}'));
  try {
    const judge = async (url: string) => {
      const a = await runCheck(securityHeaders, urlTarget(`${url}/`), { timeoutMs: 15_000 });
      if (a.status !== 'completed') throw new Error(`${a.status} ${a.error}`);
      return a.findings;
    };
    const found = await judge(sniffed.url);
    t.deepEqual(found.map((f) => f.evidence!.header), ['Content-Type', 'Content-Security-Policy', 'X-Frame-Options (or CSP frame-ancestors)', 'X-Content-Type-Options: nosniff', 'Referrer-Policy']);
    t.deepEqual(await judge(notHtml.url), []);
  } finally {
    await Promise.all([sniffed.close(), notHtml.close()]);
  }
});

test('security-headers: one finding per absent header, negative is silent', async (t) => {
  const found = await run(securityHeaders, bad);
  t.deepEqual(found.map((f) => f.title), [
    'Missing security header: Content-Security-Policy',
    'Missing security header: X-Frame-Options (or CSP frame-ancestors)',
    'Missing security header: X-Content-Type-Options: nosniff',
    'Missing security header: Referrer-Policy',
  ]);
  t.deepEqual(found[0]!.evidence!.pages, ['/', '/login']);
  t.deepEqual(await run(securityHeaders, good), []);
});

test('cookie names: sessions and logins are recognised, a name merely starting with "sid" is not', (t) => {
  for (const name of ['PHPSESSID', 'JSESSIONID', 'connect.sid', 'sid', 'sid_tt', 'app-sid', 'laravel_session', 'auth_token', 'remember_me', 'ASP.NET_SessionId']) t.true(sessionCookieName(name), name);
  for (const name of ['sidebar_state', 'sidenav', 'theme', 'consent', 'lang', '_ga']) t.false(sessionCookieName(name), name);
});

test('cookies: a bare session cookie is reported without its value; a hardened one is not', async (t) => {
  const [f, ...rest] = await run(cookies, bad);
  t.is(rest.length, 0, 'over HTTPS there is no cleartext-cookie finding');
  t.is(f!.title, 'Cookie without protective attributes: sid');
  t.deepEqual(f!.evidence!.missing, ['Secure', 'HttpOnly', 'SameSite']);
  t.false(JSON.stringify(f).includes('s3cr3t'));
  t.deepEqual(await run(cookies, good), []);
});

test('version-disclosure: versioned banners are reported, a bare product name is not', async (t) => {
  const [f] = await run(versionDisclosure, bad);
  t.deepEqual(f!.evidence!.disclosed, { server: 'Apache/2.4.41 (Ubuntu)', 'x-powered-by': 'PHP/7.4.3' });
  t.deepEqual(await run(versionDisclosure, good), []);
});

test('directory-listing: the index above a crawled file is found; a site without one is silent', async (t) => {
  const found = await run(directoryListing, bad);
  t.is(found.length, 1);
  t.is(found[0]!.location, `${bad.url}/files/`);
  t.regex(String(found[0]!.evidence!.response_indicator), /Index of \/files/);
  t.deepEqual(await run(directoryListing, good), []);
});

test('cors: reflected origin with credentials is reported; no CORS headers is silent', async (t) => {
  const [f] = await run(cors, bad);
  t.regex(String(f!.evidence!.response_indicator), /access-control-allow-origin: https:\/\/rampart-cors-probe\.invalid; access-control-allow-credentials: true/);
  t.deepEqual(await run(cors, good), []);
});

test('trace: an echoing TRACE is reported; 405 is silent', async (t) => {
  const [f] = await run(traceMethod, bad);
  t.regex(String(f!.evidence!.response_indicator), /rampart-trace-probe/);
  t.deepEqual(await run(traceMethod, good), []);
});

test('mixed-content: an http:// script on an HTTPS page is active mixed content; https and relative resources are not', async (t) => {
  const [f, ...rest] = await run(mixedContent, bad);
  t.is(rest.length, 0);
  t.regex(f!.title, /^Active mixed content on \/$/);
  t.regex(String(f!.evidence!.response_indicator), /http:\/\/cdn\.example\.test\/lib\.js/);
  t.deepEqual(await run(mixedContent, good), []);
});

test('open-redirect: /login?next= to a foreign host is reported; a redirect to a fixed path is not', async (t) => {
  const found = await run(openRedirect, bad);
  t.is(found.length, 1);
  t.is(found[0]!.evidence!.parameter, 'next');
  t.is(found[0]!.location, `${bad.url}/login`);
  t.deepEqual(await run(openRedirect, good), []);
});

test('open-redirect and directory-listing stay within max_requests and say when it ran out', async (t) => {
  // The start page alone takes the 15 common redirect names: a budget of 10 cannot cover them.
  const a = await runCheck(openRedirect, urlTarget(`${bad.url}/`), { timeoutMs: 15_000, options: { max_depth: 3, max_pages: 10, max_requests: 10 } });
  t.is(a.status, 'completed');
  t.true(a.logs.some((l) => l.level === 'WARN' && /request budget of 10 used up: \d+ redirect probe\(s\) not sent/.test(l.message)), JSON.stringify(a.logs));
  const b = await runCheck(directoryListing, urlTarget(`${bad.url}/`), { timeoutMs: 15_000, options: { max_depth: 3, max_pages: 10, max_requests: 10 } });
  t.is(b.status, 'completed');
  t.false(b.logs.some((l) => /request budget/.test(l.message)), 'a few parent directories fit the budget');
});

test('exposed-files: names are probed only with enable_bruteforce, and only files whose content proves them count (no soft-404 hits)', async (t) => {
  t.deepEqual(await run(exposedFiles, bad), []);
  const found = await run(exposedFiles, bad, { enable_bruteforce: true });
  t.deepEqual(found.map((f) => new URL(f.location!).pathname).sort(), ['/.env', '/.git/config']);
  t.false(JSON.stringify(found).includes('hunter2'));
  t.deepEqual(await run(exposedFiles, good, { enable_bruteforce: true }), []);
});

test('the crawler stays within max_depth', async (t) => {
  // Depth 0 fetches only the start page: the listing above /files/readme.txt is never reached.
  t.deepEqual(await run(directoryListing, bad, { max_depth: 0 }), []);
});
