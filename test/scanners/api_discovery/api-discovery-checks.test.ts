import test from 'ava';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { runCheck } from '../../../core/author-kit/index.ts';
import { apiDocuments } from '../../../scanners/api_discovery/checks/api-documents.ts';
import { graphqlIntrospection } from '../../../scanners/api_discovery/checks/graphql-introspection.ts';
import { unauthenticatedEndpoints } from '../../../scanners/api_discovery/checks/unauthenticated-endpoints.ts';
import { verboseErrors } from '../../../scanners/api_discovery/checks/verbose-errors.ts';
import { leakyApi, tidyApi } from '../../_helpers/targets/api-sites.ts';
import { startHttpTarget, type HttpTarget } from '../../_helpers/targets/http-target.ts';
import { urlTarget } from '../../_helpers/targets/scan-target.ts';
import { goodSite } from '../../_helpers/targets/web-sites.ts';

let leaky: HttpTarget;
let tidy: HttpTarget;
let plain: HttpTarget;

test.before(async () => {
  [leaky, tidy, plain] = await Promise.all([startHttpTarget(leakyApi), startHttpTarget(tidyApi), startHttpTarget(goodSite)]);
});
test.after.always(() => Promise.all([leaky, tidy, plain].map((s) => s?.close())));

async function run(check: ScannerCheck, site: HttpTarget) {
  const a = await runCheck(check, urlTarget(`${site.url}/`), { timeoutMs: 15_000 });
  if (a.status !== 'completed') throw new Error(`${check.id}: ${a.status} ${a.error}`);
  return a.findings;
}

test('openapi: a document linked from the start page is found and its operations listed', async (t) => {
  const [f, ...rest] = await run(apiDocuments, leaky);
  t.is(rest.length, 0);
  t.is(f!.location, `${leaky.url}/internal/openapi-v2.json`);
  t.deepEqual(f!.evidence!.operations, ['GET /users', 'POST /users', 'GET /orders/{id}', 'GET /health']);
});

test('openapi: a document at a common path is found; a site without one (soft-404 HTML) gives nothing', async (t) => {
  t.is((await run(apiDocuments, tidy))[0]!.location, `${tidy.url}/openapi.json`);
  t.deepEqual(await run(apiDocuments, plain), []);
});

test('graphql-introspection: an introspecting endpoint is reported with its operations; a refusing one is not', async (t) => {
  const [f] = await run(graphqlIntrospection, leaky);
  t.is(f!.location, `${leaky.url}/graphql`);
  t.deepEqual(f!.evidence!.operations, ['query users', 'query order', 'mutation deleteUser']);
  t.deepEqual(await run(graphqlIntrospection, tidy), []);
  t.deepEqual(await run(graphqlIntrospection, plain), []);
});

test('unauthenticated-endpoints: a secured GET answering 200 without a token is reported; public and 401 operations are not', async (t) => {
  const found = await run(unauthenticatedEndpoints, leaky);
  t.deepEqual(found.map((f) => f.location), [`GET ${leaky.url}/api/users`]);
  t.deepEqual(found[0]!.evidence!.declared_security, [{ bearerAuth: [] }]);
  t.deepEqual(await run(unauthenticatedEndpoints, tidy), []);
});

test('verbose-errors: a stack trace on a malformed URL is reported; generic errors are not', async (t) => {
  const [f] = await run(verboseErrors, leaky);
  t.is(f!.evidence!.stack, 'Node.js');
  t.regex(String(f!.evidence!.response_indicator), /layer\.js:172:12/);
  t.deepEqual(await run(verboseErrors, tidy), []);
  t.deepEqual(await run(verboseErrors, plain), []);
});

test('verbose-errors: probes the server drops are logged and the others still run; a server that answers none fails the check', async (t) => {
  // Resets the connection on the malformed paths, leaks a Python traceback on broken JSON.
  const picky = await startHttpTarget((req, res) => {
    if ((req.url ?? '').includes('%')) return void req.socket.destroy();
    if (req.method === 'POST') {
      res.statusCode = 500;
      return void res.end('Traceback (most recent call last):\n  File "/srv/app/api.py", line 12, in post\nValueError: bad JSON');
    }
    res.end('ok');
  });
  const silent = await startHttpTarget((req) => void req.socket.destroy());
  t.teardown(() => Promise.all([picky.close(), silent.close()]));
  const answered = await runCheck(verboseErrors, urlTarget(`${picky.url}/`), { timeoutMs: 15_000 });
  t.is(answered.status, 'completed', String(answered.error));
  t.deepEqual(answered.findings.map((f) => f.title), ['Stack trace disclosed (Python) on truncated JSON body']);
  t.true(answered.logs.some((l) => /GET .*\/%.* failed .*other probes/.test(l.message)), 'the dropped probe is in the scan log');
  const none = await runCheck(verboseErrors, urlTarget(`${silent.url}/`), { timeoutMs: 15_000 });
  t.is(none.status, 'error');
  t.deepEqual(none.findings, []);
});
