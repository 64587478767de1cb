import test from 'ava';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { cookies } from '../../../scanners/web_app/checks/cookies.ts';
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
    const [f, ...rest] = await judge(sniffed.url);
    t.is(rest.length, 0);
    t.deepEqual(f!.evidence!.missing, ['Content-Type', 'Content-Security-Policy', 'X-Frame-Options (or CSP frame-ancestors)', 'X-Content-Type-Options: nosniff', 'Referrer-Policy']);
    t.deepEqual(await judge(notHtml.url), []);
  } finally {
    await Promise.all([sniffed.close(), notHtml.close()]);
  }
});

test('security-headers: positive lists what is absent, negative is silent', async (t) => {
  const [f, ...rest] = await run(securityHeaders, bad);
  t.is(rest.length, 0);
  t.deepEqual(f!.evidence!.missing, ['Content-Security-Policy', 'X-Frame-Options (or CSP frame-ancestors)', 'X-Content-Type-Options: nosniff', 'Referrer-Policy']);
  t.deepEqual(await run(securityHeaders, good), []);
});

test('cookies: a bare session cookie is reported without its value; a hardened one is not', async (t) => {
  const [f] = await run(cookies, bad);
  t.deepEqual((f!.evidence!.cookies as Array<{ missing: string[] }>)[0]!.missing, ['Secure', 'HttpOnly', 'SameSite']);
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

test('exposed-files: only with enable_bruteforce, only files whose content proves them (no soft-404 hits)', async (t) => {
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
