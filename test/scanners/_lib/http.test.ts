import test from 'ava';
import type { CheckContext, ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { httpRequest } from '../../../scanners/_lib/http.ts';
import { directoryListing } from '../../../scanners/web_app/checks/directory-listing.ts';
import { securityHeaders } from '../../../scanners/web_app/checks/security-headers.ts';
import { startClosingServer } from '../../_helpers/targets/closing-server.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { badSite } from '../../_helpers/targets/web-sites.ts';

/** Runs `body` as a check against `url`'s host; returns the attempt. */
function inCheck(url: string, body: (ctx: CheckContext) => Promise<unknown>) {
  const check: ScannerCheck = { id: 'lib:http', title: 'http', category: 'test', maxSeverity: 'info', run: async (ctx) => void (await body(ctx)) };
  return runCheck(check, urlTarget(url), { timeoutMs: 10_000 });
}

test('a GET whose kept-alive connection the server closed is sent again once, on a new connection, and succeeds', async (t) => {
  const server = await startClosingServer((req, res) => res.end(`ok ${req.url}`));
  t.teardown(() => server.close());
  const bodies: string[] = [];
  const a = await inCheck(`${server.url}/`, async (ctx) => {
    for (let i = 0; i < 6; i++) bodies.push((await httpRequest(ctx, `${server.url}/${i}`)).body);
  });
  t.is(a.status, 'completed', a.error);
  t.deepEqual(bodies, ['ok /0', 'ok /1', 'ok /2', 'ok /3', 'ok /4', 'ok /5']);
  t.true(server.dropped >= 1, 'the server did close reused connections');
  t.is(server.answered, 6);
  t.regex(a.logs.map((l) => l.message).join('\n'), /connection dropped before the answer .*other side closed.*sent again on a new connection/);
});

test('a POST is never sent twice: the dropped connection is the check\'s error', async (t) => {
  const server = await startClosingServer((_req, res) => res.end('ok'), (req) => req.method === 'POST');
  t.teardown(() => server.close());
  const a = await inCheck(`${server.url}/`, (ctx) => httpRequest(ctx, `${server.url}/form`, { method: 'POST', body: 'a=1' }));
  t.is(a.status, 'error');
  t.regex(String(a.error), /other side closed|ECONNRESET|socket/i);
  t.is(server.dropped, 1, 'one attempt only');
});

test('a connection dropped again on the retry fails the request: one retry, not a loop', async (t) => {
  const server = await startClosingServer((_req, res) => res.end('ok'), (req) => req.method === 'TRACE');
  t.teardown(() => server.close());
  const a = await inCheck(`${server.url}/`, (ctx) => httpRequest(ctx, `${server.url}/`, { method: 'TRACE' }));
  t.is(a.status, 'error');
  t.is(server.dropped, 2);
});

test('web checks against a server that closes every reused connection lose nothing', async (t) => {
  const server = await startClosingServer(badSite);
  t.teardown(() => server.close());
  for (const check of [securityHeaders, directoryListing]) {
    const a = await runCheck(check, urlTarget(`${server.url}/`), { timeoutMs: 15_000, options: { max_depth: 3, max_pages: 10 } });
    t.is(a.status, 'completed', a.error);
    t.deepEqual(a.logs.filter((l) => l.level === 'WARN'), [], 'no page lost');
    t.true(a.findings.length > 0);
  }
  t.true(server.dropped >= 2);
});
