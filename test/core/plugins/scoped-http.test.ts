import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import test from 'ava';
import type { CheckContext, ScannerCheck, ScanTarget } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/plugins/run-check.ts';

/** A loopback site: /page, /redirect-in (to /page), /redirect-out (off scope), /post (echo), /big, /hang. */
async function site(t: { teardown(fn: () => void): void }): Promise<{ port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/page') return void res.end('hello');
    if (req.url === '/redirect-in') return void res.writeHead(302, { location: '/page' }).end();
    if (req.url === '/redirect-out') return void res.writeHead(302, { location: 'http://off-scope.example/steal' }).end();
    if (req.url === '/see-other') return void res.writeHead(303, { location: '/post' }).end();
    if (req.url === '/post') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      return void req.on('end', () => res.end(`${req.method}:${body}`));
    }
    if (req.url === '/big') return void res.end('x'.repeat(100_000));
    // /hang: never answers
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port: (server.address() as { port: number }).port, hits };
}

const ipTarget: ScanTarget = { assetId: 'ast_1', assetType: 'ip', name: '127.0.0.1', host: '127.0.0.1' };

/** Runs `body` as a check and returns what it resolved to (or the error message it threw). */
async function inCheck<T>(body: (ctx: CheckContext) => Promise<T>, target: ScanTarget, opts: Parameters<typeof runCheck>[2] = {}): Promise<{ value?: T; error?: string; status: string }> {
  let value: T | undefined;
  const check: ScannerCheck = { id: 'kit:http', title: 'http', category: 'test', maxSeverity: 'info', run: async (ctx) => void (value = await body(ctx)) };
  const attempt = await runCheck(check, target, { timeoutMs: 5_000, ...opts });
  return { value, error: attempt.error, status: attempt.status };
}

test('ctx.http fetches from an in-scope host, with status, headers, body and timing', async (t) => {
  const { port } = await site(t);
  const { value, status } = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${port}/page` }), ipTarget);
  t.is(status, 'completed');
  t.like(value, { statusCode: 200, body: 'hello', truncated: false, url: `http://127.0.0.1:${port}/page` });
  t.is(value!.headers['content-length'], '5');
  const posted = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${port}/post`, method: 'POST', body: 'a=1' }), ipTarget);
  t.is(posted.value!.body, 'POST:a=1');
});

test('a host outside the scope is refused before any connection', async (t) => {
  const { port, hits } = await site(t);
  const { error, status } = await inCheck((ctx) => ctx.http.request({ url: `http://localhost:${port}/page` }), ipTarget);
  t.is(status, 'error');
  t.is(error, 'localhost is outside the scan scope');
  t.deepEqual(hits, []);
  const ftp = await inCheck((ctx) => ctx.http.request({ url: 'ftp://127.0.0.1/' }), ipTarget);
  t.regex(ftp.error!, /not HTTP/);
});

test('the deny list applies to the addresses a name resolves to and to IP literals, whatever the scope says', async (t) => {
  const { port, hits } = await site(t);
  const named: ScanTarget = { assetId: 'ast_2', assetType: 'domain', name: 'localhost', host: 'localhost' };
  const deny = ['127.0.0.0/8', '::1/128'];
  const byName = await inCheck((ctx) => ctx.http.request({ url: `http://localhost:${port}/page` }), named, { deny });
  t.regex(byName.error!, /localhost resolves to (127\.0\.0\.1|::1), which is on the scan deny list/);
  const literal = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${port}/page` }), ipTarget, { inScope: () => true, deny });
  t.is(literal.error, '127.0.0.1 is on the scan deny list');
  t.deepEqual(hits, []);
});

test('redirects: none by default, in-scope ones on request, never out of scope', async (t) => {
  const { port, hits } = await site(t);
  const base = `http://127.0.0.1:${port}`;
  const none = await inCheck((ctx) => ctx.http.request({ url: `${base}/redirect-in` }), ipTarget);
  t.like(none.value, { statusCode: 302, url: `${base}/redirect-in` });
  const followed = await inCheck((ctx) => ctx.http.request({ url: `${base}/redirect-in`, maxRedirects: 3 }), ipTarget);
  t.like(followed.value, { statusCode: 200, body: 'hello', url: `${base}/page` });
  const out = await inCheck((ctx) => ctx.http.request({ url: `${base}/redirect-out`, maxRedirects: 3 }), ipTarget);
  t.like(out.value, { statusCode: 302, url: `${base}/redirect-out` });
  t.is(out.value!.headers.location, 'http://off-scope.example/steal');
  const seeOther = await inCheck((ctx) => ctx.http.request({ url: `${base}/see-other`, method: 'POST', body: 'x', maxRedirects: 1 }), ipTarget);
  t.is(seeOther.value!.body, 'GET:', '303 turns into a GET without the body');
  t.false(hits.some((h) => h.includes('steal')));
});

test('bodies are cut at maxResponseBytes; a hanging server ends with the check deadline', async (t) => {
  const { port } = await site(t);
  const big = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${port}/big`, maxResponseBytes: 1000 }), ipTarget);
  t.like(big.value, { truncated: true });
  t.is(big.value!.body.length, 1000);
  const hang = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${port}/hang` }), ipTarget, { timeoutMs: 300 });
  t.is(hang.status, 'timeout');
  const own = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${port}/hang`, timeoutMs: 100 }), ipTarget);
  t.is(own.status, 'error', 'the request limit ends it before the check deadline');
});

test('ctx.http sends an idempotent request once more when its kept-alive connection was dropped; a POST never', async (t) => {
  const { startClosingServer } = await import('../../_helpers/targets/closing-server.ts');
  const server = await startClosingServer((req, res) => res.end(`ok ${req.method} ${req.url}`), (req) => req.url === '/always');
  t.teardown(() => server.close());
  const gets = await inCheck(async (ctx) => {
    const out: string[] = [];
    for (let i = 0; i < 4; i++) out.push((await ctx.http.request({ url: `http://127.0.0.1:${server.port}/${i}` })).body);
    return out;
  }, ipTarget);
  t.is(gets.status, 'completed', gets.error);
  t.deepEqual(gets.value, ['ok GET /0', 'ok GET /1', 'ok GET /2', 'ok GET /3']);
  t.true(server.dropped >= 1);
  const dropped = server.dropped;
  const post = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${server.port}/always`, method: 'POST', body: 'x' }), ipTarget);
  t.is(post.status, 'error');
  t.is(server.dropped - dropped, 1, 'the POST was sent once');
  const get = await inCheck((ctx) => ctx.http.request({ url: `http://127.0.0.1:${server.port}/always` }), ipTarget);
  t.is(get.status, 'error');
  t.is(server.dropped - dropped, 3, 'the GET was sent twice, then failed');
});
