import test from 'ava';
import { SEVERITY_VECTORS } from '../../_helpers/harness/severity-vectors.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// Paging through a search in every sort order gives exactly the tenant's findings that
// contain the word, in the order of the unfiltered list. On SQLite a common word's page
// is found by walking a sort index and testing each entry against the matches, a rare
// word's by sorting its matches, and a count with a status filter picks either side too
// (finding-repository.ts list/count): both words and both filters cover all of them.

let t0: TestApp;
test.after.always(() => t0?.close());

const VECTORS = Object.values(SEVERITY_VECTORS);
const COUNT = 300;
const RARE = new Set([7, 200]); // under 1 % of the tenant's findings
let token = '';

test.before(async () => {
  t0 = await createTestApp();
  ({ token } = await t0.tenant());
  const asset = (await t0.request('POST', '/api/assets', { token, payload: { name: 'pages.example', type: 'domain' } })).body.data.id;
  const findings = Array.from({ length: COUNT }, (_, i) => ({
    asset_id: asset,
    // Titles repeat so that sorting by title needs the id to break ties.
    title: `Issue ${String.fromCharCode(97 + (i % 5))} ${i % 2 === 0 ? 'common' : 'plain'}${RARE.has(i) ? ' rare' : ''}`,
    description: `Synthetic finding number ${i}.`,
    cvss_vector: VECTORS[i % VECTORS.length],
  }));
  const created = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings } });
  if (created.statusCode !== 201) throw new Error(created.raw);
  const ids = (created.body.data.findings as Array<{ id: string }>).map((f) => f.id);
  // A third resolved (among them one rare finding), so a status filter splits both words.
  for (const [i, id] of ids.entries()) {
    if (i % 3 !== 1) continue;
    const res = await t0.request('PUT', `/api/findings/${id}/status`, { token, payload: { status: 'resolved', note: 'fixed' } });
    if (res.statusCode !== 200) throw new Error(res.raw);
  }
});

type Row = { id: string; title: string; status: string };

async function all(query: string, perPage: number): Promise<{ rows: Row[]; totals: number[] }> {
  const rows: Row[] = [];
  const totals: number[] = [];
  for (let page = 1; ; page++) {
    const res = await t0.request('GET', `/api/findings?${query}&per_page=${perPage}&page=${page}`, { token });
    if (res.statusCode !== 200) throw new Error(res.raw);
    totals.push(res.body.meta.total);
    rows.push(...(res.body.data as Row[]));
    if (res.body.data.length < perPage) return { rows, totals };
  }
}

const SORTS = ['sort_by=discovered_at', 'sort_by=severity', 'sort_by=cvss&sort_order=asc', 'sort_by=title&sort_order=asc', 'sort_by=title&sort_order=desc'];

for (const sort of SORTS) {
  for (const status of ['', '&status=resolved']) {
    test(`pages of a search equal the filtered list: ${sort}${status}`, async (t) => {
      const { rows: everything } = await all(`${sort}${status}`, 100);
      for (const word of ['common', 'rare']) {
        const expected = everything.filter((f) => f.title.split(' ').includes(word)).map((f) => f.id);
        const { rows, totals } = await all(`search=${word}&${sort}${status}`, 7);
        t.deepEqual(rows.map((f) => f.id), expected, `${word}: the same findings in the same order`);
        t.true(totals.every((n) => n === expected.length), `${word}: meta.total ${totals.join(',')} for ${expected.length}`);
      }
    });
  }
}

test('a page past the last match is empty and keeps the total', async (t) => {
  const res = await t0.request('GET', '/api/findings?search=rare&page=5&per_page=20', { token });
  t.is(res.statusCode, 200);
  t.deepEqual(res.body.data, []);
  t.is(res.body.meta.total, 2);
});
