import test from 'ava';
import { indexedWords } from '../../../core/domain/search-words.ts';
import { fts5Expression, parseSearch, phrasePattern } from '../../../core/findings/finding-search.ts';
import { dialectOf } from '../../../core/db/create-db.ts';
import { recountFindings } from '../../../core/findings/finding-recount.ts';
import { migrationSource } from '../../../core/db/migrate.ts';
import * as m019 from '../../../core/db/migrations/019-finding-words.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

// `search=` on GET /api/findings: the documented syntax (docs/api.md, "Finding search"),
// answered from FTS5 on SQLite and the word index (finding_words) on MariaDB. The suite runs on each engine and
// these exact result sets are the same for both.

let t0: TestApp;
test.after.always(() => t0?.close());

const HIGH = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';

const FINDINGS: Array<[string, string]> = [
  ['SQL injection in the login form', 'The id parameter is injectable with a UNION query.'],
  ['Reflected XSS', 'Cross-site scripting in the search box of the web shop.'],
  ['Outdated OpenSSL', 'OpenSSL 1.0.2 is vulnerable to Heartbleed; see CVE-2014-0160.'],
  ['Weak TLS configuration', 'The server accepts TLS 1.0 and weak ciphers such as RC4.'],
  ['Default credentials on admin_panel', "O'Reilly's guide: the admin password was never changed."],
  ['Café menu exposes data', 'A public page lists internal host 10.20.30.40 with its services.'],
  ['Login', 'injection'],
];

let token = '';
let otherToken = '';
test.before(async () => {
  t0 = await createTestApp();
  const mine = await t0.tenant();
  token = mine.token;
  const asset = (await t0.request('POST', '/api/assets', { token, payload: { name: 'search.example', type: 'domain' } })).body.data.id;
  const res = await t0.request('POST', '/api/findings/bulk', { token, payload: { findings: FINDINGS.map(([title, description]) => ({ asset_id: asset, title, description, cvss_vector: HIGH })) } });
  if (res.statusCode !== 201) throw new Error(res.raw);
  const other = await t0.tenant();
  otherToken = other.token;
  const theirAsset = (await t0.request('POST', '/api/assets', { token: otherToken, payload: { name: 'other.example', type: 'domain' } })).body.data.id;
  await t0.request('POST', '/api/findings', { token: otherToken, payload: { asset_id: theirAsset, title: 'SQL injection elsewhere', cvss_vector: HIGH } });
});

async function titles(search: string, as = token): Promise<string[]> {
  const res = await t0.request('GET', `/api/findings?per_page=100&search=${encodeURIComponent(search)}`, { token: as });
  if (res.statusCode !== 200) throw new Error(`${search}: ${res.statusCode} ${res.raw}`);
  const got = (res.body.data as Array<{ title: string }>).map((f) => f.title).sort();
  if (res.body.meta.total !== got.length) throw new Error(`${search}: meta.total ${res.body.meta.total} for ${got.length} rows`);
  return got;
}

const CASES: Array<[string, string[]]> = [
  ['injection', ['Login', 'SQL injection in the login form']],
  ['INJECTION', ['Login', 'SQL injection in the login form']],
  ['inject', []],
  ['inject*', ['Login', 'SQL injection in the login form']],
  ['login injection', ['Login', 'SQL injection in the login form']],
  ['"sql injection"', ['SQL injection in the login form']],
  ['"injection sql"', []],
  ['"login injection"', []], // title then description: a phrase does not span the two
  ['the', ['Default credentials on admin_panel', 'Reflected XSS', 'SQL injection in the login form', 'Weak TLS configuration']],
  ['"in the login"', []], // "in" is too short: a 400, see below; the words alone:
  ['cross-site', ['Reflected XSS']],
  ['"cross site"', ['Reflected XSS']],
  ['site cross', ['Reflected XSS']],
  ['"site cross"', []],
  ['admin', ['Default credentials on admin_panel']],
  ['admin_panel', ['Default credentials on admin_panel']],
  ['panel', []],
  ['admin_*', ['Default credentials on admin_panel']],
  ['reilly', ['Default credentials on admin_panel']],
  ['café', ['Café menu exposes data']],
  ['CAFÉ', ['Café menu exposes data']],
  ['cafe', []],
  ['10.20.30.40', []], // words of two characters
  ['cve-2014-0160', ['Outdated OpenSSL']],
  ['2014', ['Outdated OpenSSL']],
  ['tls weak', ['Weak TLS configuration']],
  ['tls heartbleed', []],
  ['openssl heartbleed', ['Outdated OpenSSL']],
  ['ope*', ['Outdated OpenSSL']],
  ['+sql -injection', ['SQL injection in the login form']], // operators are only separators
  ['sql (injection)', ['SQL injection in the login form']],
  ['"unterminated phrase', []],
  ['"the web shop', ['Reflected XSS']],
];

for (const [search, expected] of CASES.filter(([s]) => s !== '"in the login"' && s !== '10.20.30.40')) {
  test(`search ${search}`, async (t) => {
    t.deepEqual(await titles(search), expected.sort());
  });
}

test('the tenant id indexed beside the text is not searched as text', async (t) => {
  const { tenantId } = (await t0.ctx.db('findings').where({ title: 'Login' }).first('tenant_id as tenantId')) as { tenantId: string };
  t.deepEqual(await titles(tenantId), []);
});

test('another tenant\'s findings never match', async (t) => {
  t.deepEqual(await titles('injection', otherToken), ['SQL injection elsewhere']);
  t.deepEqual(await titles('openssl', otherToken), []);
});

test('search combines with the other filters and sorts', async (t) => {
  const res = await t0.request('GET', `/api/findings?search=injection&sort_by=title&sort_order=asc&status=open`, { token });
  t.deepEqual(res.body.data.map((f: { title: string }) => f.title), ['Login', 'SQL injection in the login form']);
  t.is((await t0.request('GET', '/api/findings?search=injection&status=resolved', { token })).body.meta.total, 0);
});

test('words shorter than 3 or longer than 84 characters, and searches without words, are 400 and answer nothing', async (t) => {
  for (const search of ['in', '"in the login"', '10.20.30.40', 'sql in', 'op*', '---', '""', '*', 'x'.repeat(85), Array.from({ length: 17 }, (_, i) => `word${i}`).join(' ')]) {
    const res = await t0.request('GET', `/api/findings?search=${encodeURIComponent(search)}`, { token });
    t.is(res.statusCode, 400, search);
    t.is(res.body.error.code, 'validation_failed', search);
    t.is(res.body.error.details[0].field, 'search', search);
  }
});

test('the parser quotes every word, so nothing reaches either engine as an operator', (t) => {
  t.deepEqual(parseSearch('Login  "SQL  injection" cross-site ope* NEAR(abc) \'quoted\' AND'), [
    { words: ['login'], prefix: false },
    { words: ['sql', 'injection'], prefix: false },
    { words: ['cross', 'site'], prefix: false },
    { words: ['ope'], prefix: true },
    { words: ['near', 'abc'], prefix: false },
    { words: ['quoted'], prefix: false },
    { words: ['and'], prefix: false },
  ]);
  t.is(fts5Expression(parseSearch('sql "cross site" ope*')), '{title description} : ("sql" AND "cross site" AND "ope" *)');
  t.is(fts5Expression(parseSearch('sql'), 'tnt_01ABC'), 'tenant_id : "tnt_01ABC" AND {title description} : ("sql")');
  t.is(phrasePattern(['cross', 'site']), '(^|[^\\p{L}\\p{N}_])cross[^\\p{L}\\p{N}_]+site([^\\p{L}\\p{N}_]|$)');
});

test('MariaDB\'s word index holds each word of title and description once, lower-cased, 3 to 84 characters', (t) => {
  t.deepEqual(indexedWords('SQL injection in SQL', 'Café_menu: O\'Reilly — é 2014 ' + 'x'.repeat(85)), ['sql', 'injection', 'café_menu', 'reilly', '2014']);
});

test.serial('a search index that lost a finding is found by the recount and rebuilt by --repair', async (t) => {
  const db = t0.ctx.db;
  if (dialectOf(db) === 'mysql') {
    const { id } = (await db('findings').where({ title: 'Weak TLS configuration' }).first('id')) as { id: string };
    await db('finding_words').where({ finding_id: id, word: 'ciphers' }).delete();
  } else {
    const row = (await db('findings').where({ title: 'Weak TLS configuration' }).first('rowid as r', 'tenant_id', 'title', 'description')) as { r: number; tenant_id: string; title: string; description: string };
    await db.raw("insert into findings_fts(findings_fts, rowid, tenant_id, title, description) values ('delete', ?, ?, ?, ?)", [row.r, row.tenant_id, row.title, row.description]);
  }
  t.deepEqual(await titles('ciphers'), []);
  t.deepEqual((await recountFindings(db)).search, { consistent: false, rebuilt: false });
  t.deepEqual((await recountFindings(db, { repair: true })).search, { consistent: false, rebuilt: true });
  t.deepEqual(await titles('ciphers'), ['Weak TLS configuration']);
  t.deepEqual((await recountFindings(db)).search, { consistent: true, rebuilt: false });
});

test.serial('MariaDB: a finding\'s words go with it when its asset is deleted', async (t) => {
  const db = t0.ctx.db;
  if (dialectOf(db) !== 'mysql') return t.pass('SQLite: FTS5 triggers; covered by the integrity check above');
  const asset = (await t0.request('POST', '/api/assets', { token, payload: { name: 'gone.example', type: 'domain' } })).body.data.id;
  const made = await t0.request('POST', '/api/findings', { token, payload: { asset_id: asset, title: 'Ephemeral zebra finding', cvss_vector: HIGH } });
  t.true(((await db('finding_words').where({ finding_id: made.body.data.id })) as unknown[]).length >= 3);
  t.deepEqual(await titles('zebra'), ['Ephemeral zebra finding']);
  t.is((await t0.request('DELETE', `/api/assets/${asset}`, { token })).statusCode, 204);
  t.deepEqual(await db('finding_words').where({ finding_id: made.body.data.id }), []);
  t.deepEqual(await titles('zebra'), []);
});

test.serial('MariaDB: migration 019 indexes the findings already there exactly as their writes did', async (t) => {
  const db = t0.ctx.db;
  if (dialectOf(db) !== 'mysql') return t.pass('SQLite: migration 019 changes nothing');
  const words = async () => (await db('finding_words').orderBy(['tenant_id', 'word', 'finding_id']).select('tenant_id', 'word', 'finding_id')) as unknown[];
  const written = await words();
  t.true(written.length > 30);
  // Only 019 is rolled back and re-run: migrations after it (inventory, sso) do not touch finding_words.
  await db.migrate.down({ migrationSource, name: m019.name });
  t.false(await db.schema.hasTable('finding_words'));
  await db.migrate.up({ migrationSource, name: m019.name });
  t.deepEqual(await words(), written);
  t.deepEqual(await titles('ciphers'), ['Weak TLS configuration']);
});
