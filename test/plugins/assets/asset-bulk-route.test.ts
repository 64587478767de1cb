import { Readable } from 'node:stream';
import test from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

let t0: TestApp;
const MAX_ROWS = 5000;
const MAX_BYTES = 1024 * 1024;
test.before(async () => {
  t0 = await createTestApp({ assets: { bulk: { maxRows: MAX_ROWS, maxBytes: MAX_BYTES, batchSize: 100 } } });
});
test.after.always(async () => {
  await t0?.close();
});

async function csv(token: string, body: string | Readable, contentType = 'text/csv') {
  const res = await t0.server.inject({ method: 'POST', url: '/api/assets/bulk', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, payload: body as string });
  return { statusCode: res.statusCode, body: JSON.parse(res.payload || 'null') };
}

async function total(token: string, query = '') {
  return (await t0.request('GET', `/api/assets?per_page=1${query}`, { token })).body.meta.total as number;
}

test('CSV: good rows imported with tags, bad rows reported with row, name, code, message', async (t) => {
  const { token, tenantId } = await t0.tenant();
  await t0.request('POST', '/api/assets', { token, payload: { name: 'exists.example', type: 'domain' } });
  const body = [
    'name,type,tags',
    'shop.example,domain,"prod,web"',
    '192.0.2.5,ip,prod',
    'not a domain,domain,',
    'https://app.example/login,url,"staging, web"',
    'exists.example,domain,',
    'SHOP.example,domain,',
    '10.0.0.0/8,network,',
    '10.9.0.0/16,network,',
    'x.example,host,',
    'only-two-cells.example,domain,a,b',
    '',
  ].join('\r\n');
  const res = await csv(token, body);
  t.is(res.statusCode, 200);
  t.is(res.body.data.imported, 4);
  t.is(res.body.data.failed, 6);
  t.false(res.body.data.errors_truncated);
  t.deepEqual(res.body.data.errors.map((e: { row: number; code: string }) => [e.row, e.code]), [
    [3, 'invalid_domain'], [5, 'asset_exists'], [6, 'duplicate_in_import'], [7, 'network_too_large'], [9, 'invalid_type'], [10, 'invalid_row'],
  ]);
  const byRow = new Map(res.body.data.errors.map((e: { row: number }) => [e.row, e]));
  t.deepEqual(byRow.get(3), { row: 3, name: 'not a domain', code: 'invalid_domain', message: (byRow.get(3) as { message: string }).message });
  t.like(byRow.get(5), { code: 'asset_exists', name: 'exists.example' });
  t.like(byRow.get(6), { code: 'duplicate_in_import', name: 'shop.example' });
  t.like(byRow.get(7), { code: 'network_too_large' });
  t.like(byRow.get(9), { code: 'invalid_type' });
  t.like(byRow.get(10), { code: 'invalid_row', name: 'only-two-cells.example' });
  t.is(await total(token), 5);
  t.is(await total(token, '&tag=web'), 2);
  const url = (await t0.request('GET', '/api/assets?type=url', { token })).body.data[0];
  t.deepEqual(url.tags, ['staging', 'web']);
  const events = await t0.ctx.db('events').where({ tenant_id: tenantId, kind: 'asset.created' }).count({ n: '*' }).first();
  t.is(Number(events!.n), 5);
});

test('JSON: the same rules, streamed element by element', async (t) => {
  const { token } = await t0.tenant();
  const payload = {
    assets: [
      { name: 'a.example', type: 'domain', tags: ['x'] },
      { name: '2001:DB8::1', type: 'ip' },
      'not an object',
      { name: 'b.example', type: 'domain', owner: 'me' },
      { name: 'ftp://c.example/', type: 'url' },
      { name: 'd.example', type: 'domain', tags: 'x' },
      { name: 'e.example', type: 'domain', tags: ['has,comma'] },
    ],
  };
  const res = await t0.request('POST', '/api/assets/bulk', { token, payload });
  t.is(res.statusCode, 200);
  t.is(res.body.data.imported, 2);
  t.deepEqual(res.body.data.errors.map((e: { row: number; code: string }) => [e.row, e.code]), [[3, 'invalid_row'], [4, 'invalid_row'], [5, 'invalid_url'], [6, 'invalid_tags'], [7, 'invalid_tags']]);
  t.deepEqual((await t0.request('GET', '/api/assets?type=ip', { token })).body.data.map((a: { name: string }) => a.name), ['2001:db8::1']);
});

test('unreadable bodies are 400 and import nothing', async (t) => {
  const { token } = await t0.tenant();
  const cases: Array<[string, string, string]> = [
    ['text/csv', 'name,type,tags\r\nok.example,domain,\r\n"broken,domain,\r\n', 'invalid_csv'],
    ['text/csv', 'hostname,kind\r\nok.example,domain\r\n', 'invalid_csv_header'],
    ['text/csv', '', 'invalid_csv_header'],
    ['application/json', '{"assets": [{"name": "ok.example", "type": "domain"}, {"name": ]}', 'invalid_json'],
    ['application/json', '{"assets": [{"name": "ok.example", "type": "domain"}], "more": 1}', 'invalid_json'],
    ['application/json', '{"items": []}', 'invalid_json'],
    ['application/json', '{"assets": [{"name": "ok.example", "type": "domain"},]}', 'invalid_json'],
    ['application/json', '{"assets": [{"name": "ok.example", "type": "domain"}', 'invalid_json'],
  ];
  for (const [type, body, code] of cases) {
    const res = await csv(token, body, type);
    t.is(res.statusCode, 400, body);
    t.is(res.body.error.code, code, body);
  }
  t.is(await total(token), 0);
  t.is((await csv(token, 'name,type\nx.example,domain\n', 'application/xml')).statusCode, 415);
});

test('row and byte limits answer 413 and import nothing', async (t) => {
  const { token } = await t0.tenant();
  const rows = ['name,type,tags', ...Array.from({ length: MAX_ROWS + 1 }, (_, i) => `h${i}.example,domain,`)].join('\n');
  const tooMany = await csv(token, rows);
  t.is(tooMany.statusCode, 413);
  t.is(tooMany.body.error.code, 'payload_too_large');
  t.is(tooMany.body.error.max_rows, MAX_ROWS);
  const longName = `${'a'.repeat(60)}.example`;
  const big = ['name,type,tags', ...Array.from({ length: 20000 }, () => `${longName},domain,`)].join('\n');
  t.true(big.length > MAX_BYTES);
  const declared = await csv(token, big);
  t.is(declared.statusCode, 413);
  // Without a Content-Length the byte count is enforced while streaming.
  const streamed = await csv(token, Readable.from([big.slice(0, 500_000), big.slice(500_000)]));
  t.is(streamed.statusCode, 413);
  t.is(streamed.body.error.code, 'payload_too_large');
  t.is(await total(token), 0);
});

test('a streamed import of many rows crosses many batches', async (t) => {
  const { token } = await t0.tenant();
  const n = 3000;
  async function* lines() {
    yield 'name,type,tags\n';
    for (let i = 0; i < n; i += 500) yield Array.from({ length: 500 }, (_, j) => `host-${i + j}.example,domain,"bulk,batch-${(i + j) % 3}"\n`).join('');
  }
  const res = await csv(token, Readable.from(lines()));
  t.is(res.statusCode, 200);
  t.deepEqual(res.body.data, { imported: n, failed: 0, errors: [], errors_truncated: false });
  t.is(await total(token), n);
  t.is(await total(token, '&tag=batch-1'), n / 3);
  const again = await csv(token, Readable.from(lines()));
  t.is(again.body.data.imported, 0);
  t.is(again.body.data.failed, n);
  t.is(again.body.data.errors.length, 1000);
  t.true(again.body.data.errors_truncated);
});

test('scope and tenant separation', async (t) => {
  const reader = await t0.tenant({ scopes: ['assets:read'] });
  t.is((await csv(reader.token, 'name,type,tags\nx.example,domain,\n')).statusCode, 403);
  const a = await t0.tenant();
  const b = await t0.tenant();
  t.is((await csv(a.token, 'name,type\nshared.example,domain\n')).body.data.imported, 1);
  t.is((await csv(b.token, 'name,type\nshared.example,domain\n')).body.data.imported, 1);
});
