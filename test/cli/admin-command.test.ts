import test from 'ava';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { rampart } from './_cli.ts';

let app: TestApp;
let base: string;
test.before(async () => {
  app = await createTestApp();
  await app.server.start();
  base = app.server.info.uri;
});
test.after.always(async () => {
  await app?.close();
});

const asAdmin = () => ({ RAMPART_URL: base, RAMPART_TOKEN: app.adminToken });

test('tenants, users and tokens through the API; a new token is printed once and works; revoked it stops', async (t) => {
  const created = await rampart(['--json', 'admin', 'tenants', 'create', 'cli-blue', '--tier', 'premium'], asAdmin());
  t.is(created.code, 0, created.stderr);
  const tenant = JSON.parse(created.stdout);
  t.like(tenant, { name: 'cli-blue', tier: 'premium' });

  const table = await rampart(['admin', 'tenants', 'list', '--per-page', '100'], asAdmin());
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, new RegExp(`^${tenant.id}\\s+cli-blue\\s+premium`, 'm'));

  const user = await rampart(['--json', 'admin', 'users', 'create', tenant.id, '--email', 'ana@example.com', '--scopes', 'findings:read', '--password-stdin'], asAdmin(), 'a long passphrase here\n');
  t.is(user.code, 0, user.stderr);
  const login = await app.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'ana@example.com', password: 'a long passphrase here' } });
  t.is(login.statusCode, 200, 'the password came through stdin intact');

  const issued = await rampart(['admin', 'tokens', 'create', tenant.id, '--name', 'ci', '--scopes', 'assets:read,findings:write', '--expires-in', '3600'], asAdmin());
  t.is(issued.code, 0, issued.stderr);
  const token = issued.stdout.trim();
  t.regex(token, /^rmp_\S+$/, 'only the token on stdout, for $(…)');
  t.regex(issued.stderr, /shown once/);
  t.is((await app.request('GET', '/api/assets', { token })).statusCode, 200);

  const tokens = await rampart(['--json', 'admin', 'tokens', 'list', tenant.id], asAdmin());
  const listed = JSON.parse(tokens.stdout) as { data: Array<{ id: string; name: string }>; meta: { total: number } };
  const ci = listed.data.find((x) => x.name === 'ci')!;
  t.truthy(ci);
  t.false(tokens.stdout.includes(token.slice(4)), 'lists never show token values');
  const revoked = await rampart(['admin', 'tokens', 'revoke', ci.id], asAdmin());
  t.is(revoked.code, 0, revoked.stderr);
  t.is((await app.request('GET', '/api/assets', { token })).statusCode, 401);
});

test('exit codes: refused 4 (with the API\'s error as JSON), unreachable or unconfigured 3, usage 2; no token option exists', async (t) => {
  const { token } = await app.tenant();
  const forbidden = await rampart(['--json', 'admin', 'tenants', 'list'], { RAMPART_URL: base, RAMPART_TOKEN: token });
  t.is(forbidden.code, 4);
  t.like(JSON.parse(forbidden.stdout), { error: { code: 'insufficient_scope' }, exit_code: 4 });
  const missing = await rampart(['admin', 'tenants', 'get', 'ten_01M86H4Q8BWNB1J21986FC2ATZ'], asAdmin());
  t.is(missing.code, 4);
  t.regex(missing.stderr, /Tenant not found\. \(404 not_found\)/);
  const noToken = await rampart(['admin', 'tenants', 'list'], { RAMPART_URL: base });
  t.is(noToken.code, 3);
  t.regex(noToken.stderr, /RAMPART_TOKEN/);
  const down = await rampart(['admin', 'tenants', 'list'], { RAMPART_URL: 'http://127.0.0.1:9', RAMPART_TOKEN: app.adminToken });
  t.is(down.code, 3);
  t.regex(down.stderr, /Cannot reach Rampart at http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
  const argvToken = await rampart(['admin', 'tenants', 'list', '--token', app.adminToken], { RAMPART_URL: base });
  t.is(argvToken.code, 2);
  t.regex(argvToken.stderr, /unknown option '--token'/);
  const password = await rampart(['admin', 'users', 'create', 'ten_01M86H4Q8BWNB1J21986FC2ATZ', '--email', 'a@example.com', '--scopes', 'findings:read', '--password', 'secret-in-argv'], asAdmin());
  t.is(password.code, 2);
});

test('--direct works on the configured database without any token: bootstrap and recovery', async (t) => {
  const direct = { DATABASE_URL: app.database.url, RAMPART_SECRET_KEY: app.config.secrets.key ?? '' };
  const tenant = await rampart(['--json', 'admin', '--direct', 'tenants', 'create', 'recovered'], direct);
  t.is(tenant.code, 0, tenant.stderr);
  const { id } = JSON.parse(tenant.stdout) as { id: string };
  const issued = await rampart(['admin', '--direct', 'tokens', 'create', id, '--name', 'break-glass', '--scopes', 'assets:read'], direct);
  t.is(issued.code, 0, issued.stderr);
  const res = await app.request('GET', '/api/assets', { token: issued.stdout.trim() });
  t.is(res.statusCode, 200, 'a token made on the database works through the API');
  const bad = await rampart(['admin', '--direct', 'tokens', 'create', id, '--name', 'x', '--scopes', 'not-a-scope'], direct);
  t.is(bad.code, 4, 'the API\'s own validation applies');
  t.regex(bad.stderr, /Invalid token/);
});
