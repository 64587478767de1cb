import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import test from 'ava';
import { createLogger } from '../../../core/logger.ts';
import { ROLE_SCOPES } from '../../../core/domain/roles.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { jwtParts, signInAtProvider, startProvider, type TestProvider } from '../../_helpers/sso/oidc-provider.ts';

// Rampart is injected (not listening): the provider redirects to this URI and the test hands the answer to Rampart.
const REDIRECT = 'http://127.0.0.1:9/api/user/auth/sso/callback';
const ID_TOKEN_TTL = 60;

let app: TestApp;
let idp: TestProvider;
let acme: string;
const logged: Array<{ msg: string; code?: string; detail?: string }> = [];

test.before(async () => {
  idp = await startProvider(REDIRECT, { idTokenTtlSeconds: ID_TOKEN_TTL });
  const sink = new Writable({ write(chunk, _enc, done) { logged.push(JSON.parse(String(chunk))); done(); } });
  app = await createTestApp({
    sso: {
      redirectUri: REDIRECT,
      allowInsecureHttp: true,
      clockToleranceSeconds: 30,
      providers: [{
        id: 'corp', name: 'Corp IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, claim: 'groups', scopes: ['openid', 'email', 'profile', 'groups'],
        mappings: [
          { value: 'sec-viewers', tenant: 'acme', role: 'viewer' },
          { value: 'sec-analysts', tenant: 'acme', role: 'analyst' },
          { value: 'sec-responders', tenant: 'acme', role: 'responder' },
          { value: 'sec-admins', tenant: 'acme', role: 'tenant_admin' },
          { value: 'globex-team', tenant: 'globex', role: 'viewer' },
        ],
      }],
    },
  }, { logger: createLogger('warn', sink) });
  acme = (await app.ctx.services.admin.createTenant({ name: 'acme', tier: 'standard' })).id;
  await app.ctx.services.admin.createTenant({ name: 'globex', tier: 'standard' });
  idp.accounts.set('alice', { email: 'alice@acme.example', name: 'Alice Analyst', groups: ['staff', 'sec-analysts'] });
  idp.accounts.set('bob', { email: 'bob@acme.example', name: 'Bob', groups: ['staff', 'marketing'] });
  idp.accounts.set('carol', { email: 'carol@acme.example', name: 'Carol', groups: ['sec-viewers'] });
  idp.accounts.set('dave', { email: 'dave@acme.example', name: 'Dave', groups: ['sec-responders', 'globex-team'] });
  idp.accounts.set('erin', { email: 'erin@acme.example', name: 'Erin', groups: ['sec-responders'] });
});
test.after.always(async () => {
  await app?.close();
  await idp?.close();
});

const binding = () => randomBytes(32).toString('base64url');

/** Starts a sign-in, signs in at the provider as `login`: the provider's redirect back (not yet given to Rampart). */
async function toProvider(login: string, bound = binding()) {
  const started = await app.request('POST', '/api/user/auth/sso/start', { token: null, payload: { provider: 'corp', binding: bound } });
  if (started.statusCode !== 200) throw new Error(started.raw);
  const url = new URL(started.body.data.authorization_url);
  return { bound, url, callback: await signInAtProvider(url.href, login) };
}

/** Rampart's answer to the provider's redirect: the console fragment it sends the browser to. */
async function callback(providerRedirect: string): Promise<URLSearchParams> {
  const u = new URL(providerRedirect);
  const res = await app.request('GET', `${u.pathname}${u.search}`, { token: null });
  if (res.statusCode !== 303) throw new Error(`${res.statusCode} ${res.raw}`);
  const location = String(res.headers.location);
  if (!location.startsWith('/console#/sso?')) throw new Error(location);
  return new URLSearchParams(location.slice('/console#/sso?'.length));
}

async function signIn(login: string) {
  const { bound, callback: back } = await toProvider(login);
  const fragment = await callback(back);
  if (!fragment.get('handoff')) throw new Error(`refused: ${fragment.get('error')}`);
  const res = await app.request('POST', '/api/user/auth/sso/exchange', { token: null, payload: { handoff: fragment.get('handoff'), binding: bound } });
  if (res.statusCode !== 200) throw new Error(res.raw);
  return res.body.data as { token: string; user_id: string; scopes: string[]; role: string; tenant_id: string; expires_at: string };
}

async function footprint() {
  const count = async (table: string) => Number(((await app.ctx.db(table).count({ n: '*' }).first()) as { n: number }).n);
  return { users: await count('users'), identities: await count('sso_identities'), tokens: await count('api_tokens'), liveTokens: Number(((await app.ctx.db('api_tokens').whereNull('revoked_at').count({ n: '*' }).first()) as { n: number }).n) };
}

test.serial('the provider list is public; a sign-in starts with PKCE (S256), a state and a nonce', async (t) => {
  const list = await app.request('GET', '/api/user/auth/sso/providers', { token: null });
  t.deepEqual(list.body.data, [{ id: 'corp', name: 'Corp IdP' }]);
  const started = await app.request('POST', '/api/user/auth/sso/start', { token: null, payload: { provider: 'corp', binding: binding() } });
  const url = new URL(started.body.data.authorization_url);
  t.is(url.origin, idp.issuer);
  t.like(Object.fromEntries(url.searchParams), { response_type: 'code', client_id: 'rampart', redirect_uri: REDIRECT, code_challenge_method: 'S256', scope: 'openid email profile groups' });
  t.regex(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  t.truthy(url.searchParams.get('state'));
  t.truthy(url.searchParams.get('nonce'));
  t.is((await app.request('POST', '/api/user/auth/sso/start', { token: null, payload: { provider: 'nope', binding: binding() } })).statusCode, 404);
});

test.serial('a good sign-in makes the user with the role\'s scopes, and the scopes are enforced on the API', async (t) => {
  const before = await footprint();
  const session = await signIn('alice');
  t.is(session.tenant_id, acme);
  t.is(session.role, 'analyst');
  t.deepEqual([...session.scopes].sort(), [...ROLE_SCOPES.analyst].sort());
  const after = await footprint();
  t.deepEqual({ users: after.users - before.users, identities: after.identities - before.identities, tokens: after.tokens - before.tokens }, { users: 1, identities: 1, tokens: 1 });
  const me = await app.request('GET', '/api/user/me', { token: session.token });
  t.like(me.body.data, { tenant: { id: acme, name: 'acme' }, token: { kind: 'login', name: 'sso:corp' }, user_id: session.user_id });
  const as = (method: string, url: string, payload?: unknown) => app.request(method, url, { token: session.token, payload });
  t.is((await as('GET', '/api/findings')).statusCode, 200);
  t.is((await as('POST', '/api/assets', { name: 'alice.example', type: 'domain' })).statusCode, 201);
  const denied = await as('POST', '/api/webhooks', { name: 'x', url: 'https://127.0.0.1:9/x', events: ['finding.new'] });
  t.is(denied.statusCode, 403);
  t.is((await as('POST', '/api/actions', { name: 'x', type: 'remediation', executor: 'local', config: { target: 'x.sh' } })).statusCode, 403);
  t.is((await as('GET', '/api/admin/tenants')).statusCode, 403);
  // The user cannot sign in with a password: it has none.
  t.is((await app.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'alice@acme.example', password: 'anything at all' } })).statusCode, 401);

  // Signing in again is the same user; a responder gets more, a viewer less.
  idp.accounts.get('alice')!.groups = ['sec-responders'];
  const again = await signIn('alice');
  t.is(again.user_id, session.user_id);
  t.is(again.role, 'responder');
  t.true(again.scopes.includes('actions:execute'));
  t.is((await footprint()).users, after.users);
});

test.serial('wrong audience, wrong issuer, another nonce, expired token, replayed state, bad signature and missing group are each refused, with nothing created', async (t) => {
  const refusals: Record<string, () => Promise<URLSearchParams>> = {
    'missing group': async () => callback((await toProvider('bob')).callback),
    'groups of two tenants': async () => callback((await toProvider('dave')).callback),
    'bad signature': async () => {
      // The claims changed on the way (the groups made an admin's), the provider's signature kept.
      idp.tamper = (body) => {
        const { header, payload, signature } = jwtParts(String(body.id_token));
        const forged = Buffer.from(JSON.stringify({ ...payload, groups: ['sec-admins'] })).toString('base64url');
        return { ...body, id_token: `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${forged}.${signature}` };
      };
      try {
        return await callback((await toProvider('erin')).callback);
      } finally {
        idp.tamper = null;
      }
    },
    'wrong audience': async () => {
      // A token the same provider signed, for another client.
      idp.tamper = (body) => {
        const { header, payload } = jwtParts(String(body.id_token));
        return { ...body, id_token: idp.sign(header, { ...payload, aud: 'other-app', azp: 'other-app' }) };
      };
      try {
        return await callback((await toProvider('erin')).callback);
      } finally {
        idp.tamper = null;
      }
    },
    'wrong issuer': async () => {
      idp.tamper = (body) => {
        const { header, payload } = jwtParts(String(body.id_token));
        return { ...body, id_token: idp.sign(header, { ...payload, iss: 'https://attacker.example' }) };
      };
      try {
        return await callback((await toProvider('erin')).callback);
      } finally {
        idp.tamper = null;
      }
    },
    'another sign-in\'s nonce': async () => {
      // A genuine token of an earlier sign-in, presented for this one.
      idp.tamper = (body) => {
        const { header, payload } = jwtParts(String(body.id_token));
        return { ...body, id_token: idp.sign(header, { ...payload, nonce: 'nonce-of-another-sign-in' }) };
      };
      try {
        return await callback((await toProvider('erin')).callback);
      } finally {
        idp.tamper = null;
      }
    },
    'expired token': async () => {
      const { callback: back } = await toProvider('erin');
      // Rampart's clock runs past the ID token's expiry plus the allowed skew (no waiting).
      app.ctx.services.sso.now = () => Date.now() + (ID_TOKEN_TTL + 30 + 60) * 1000;
      try {
        return await callback(back);
      } finally {
        app.ctx.services.sso.now = () => Date.now();
      }
    },
    'replayed state': async () => {
      const { callback: back } = await toProvider('erin');
      const first = await callback(back);
      t.truthy(first.get('handoff'), 'the first answer is accepted (never exchanged here)');
      return callback(back);
    },
    'unknown state': async () => {
      const { callback: back } = await toProvider('erin');
      const u = new URL(back);
      u.searchParams.set('state', 'forged-state-value');
      return callback(u.href);
    },
  };
  const expected: Record<string, [string, RegExp]> = {
    'missing group': ['sso_no_access', /claim "groups"/],
    'groups of two tenants': ['sso_ambiguous_tenant', /acme, globex/],
    'bad signature': ['sso_invalid_token', /signature/i],
    'wrong audience': ['sso_invalid_token', /"aud"|audience/i],
    'wrong issuer': ['sso_invalid_token', /"iss"|issuer/i],
    'another sign-in\'s nonce': ['sso_invalid_token', /nonce/i],
    'expired token': ['sso_invalid_token', /"exp"|expired|timestamp/i],
    'replayed state': ['sso_state_replayed', /already arrived/],
    'unknown state': ['sso_unknown_state', /no sign-in/],
  };
  for (const [label, run] of Object.entries(refusals)) {
    const before = await footprint();
    logged.length = 0;
    const fragment = await run();
    t.is(fragment.get('error'), expected[label]![0], label);
    t.is(fragment.get('handoff'), null, label);
    const entry = logged.find((l) => l.msg === 'single sign-on refused');
    t.regex(entry?.detail ?? "", expected[label]![1], `${label}: ${entry?.detail}`);
    t.log(`${label}: ${entry?.code} (${entry?.detail})`);
    t.deepEqual(await footprint(), before, `${label}: nothing created`);
  }
});

test.serial('a hand-off needs the binding of the browser that started it, once (login CSRF)', async (t) => {
  const { bound, callback: back } = await toProvider('carol');
  const fragment = await callback(back);
  const handoff = fragment.get('handoff')!;
  const before = await footprint();
  const other = await app.request('POST', '/api/user/auth/sso/exchange', { token: null, payload: { handoff, binding: binding() } });
  t.is(other.statusCode, 401);
  t.is(other.body.error.code, 'sso_handoff_invalid');
  t.deepEqual(await footprint(), before);
  const own = await app.request('POST', '/api/user/auth/sso/exchange', { token: null, payload: { handoff, binding: bound } });
  t.is(own.statusCode, 200, own.raw);
  t.is(own.body.data.role, 'viewer');
  const twice = await app.request('POST', '/api/user/auth/sso/exchange', { token: null, payload: { handoff, binding: bound } });
  t.is(twice.statusCode, 401);
});

test.serial('an SSO user makes their own tokens within their role; a demotion or lost group revokes what goes beyond', async (t) => {
  idp.accounts.get('erin')!.groups = ['sec-responders'];
  const session = await signIn('erin');
  const expires = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const made = await app.request('POST', '/api/user/tokens', { token: session.token, payload: { name: 'ci', scopes: ['findings:read', 'actions:execute'], expires_at: expires } });
  t.is(made.statusCode, 201, made.raw);
  t.regex(made.body.data.token, /^rmp_/);
  t.is((await app.request('GET', '/api/findings', { token: made.body.data.token })).statusCode, 200);
  const beyond = await app.request('POST', '/api/user/tokens', { token: session.token, payload: { name: 'x', scopes: ['webhooks:manage'], expires_at: expires } });
  t.is(beyond.statusCode, 403);
  t.is(beyond.body.error.code, 'insufficient_scope');
  const tooLong = await app.request('POST', '/api/user/tokens', { token: session.token, payload: { name: 'x', scopes: ['findings:read'], expires_at: new Date(Date.now() + 91 * 86_400_000).toISOString() } });
  t.is(tooLong.statusCode, 400);
  const fromApiToken = await app.request('POST', '/api/user/tokens', { token: made.body.data.token, payload: { name: 'x', scopes: ['findings:read'], expires_at: expires } });
  t.is(fromApiToken.statusCode, 403);
  t.is(fromApiToken.body.error.code, 'sign_in_required');
  const readOnly = await app.request('POST', '/api/user/tokens', { token: session.token, payload: { name: 'read', scopes: ['findings:read'], expires_at: expires } });
  const list = await app.request('GET', '/api/user/tokens', { token: session.token });
  t.deepEqual(list.body.data.map((x: { name: string }) => x.name), ['read', 'ci']);
  const carol = await signIn('carol');
  t.is((await app.request('DELETE', `/api/user/tokens/${readOnly.body.data.id}`, { token: carol.token })).statusCode, 404);

  // Demoted to viewer: the token holding actions:execute goes, the read-only one stays.
  idp.accounts.get('erin')!.groups = ['sec-viewers'];
  await signIn('erin');
  t.is((await app.request('GET', '/api/findings', { token: made.body.data.token })).statusCode, 401);
  t.is((await app.request('GET', '/api/findings', { token: readOnly.body.data.token })).statusCode, 200);
  // Out of every mapped group: the refused sign-in creates nothing and cuts off the tokens left.
  idp.accounts.get('erin')!.groups = ['staff'];
  const before = await footprint();
  t.is((await callback((await toProvider('erin')).callback)).get('error'), 'sso_no_access');
  t.is((await app.request('GET', '/api/findings', { token: readOnly.body.data.token })).statusCode, 401);
  const after = await footprint();
  t.is(after.users, before.users);
  t.is(after.tokens, before.tokens);
  const revoked = await app.request('DELETE', `/api/user/tokens/${readOnly.body.data.id}`, { token: session.token });
  t.is(revoked.statusCode, 401, 'the session itself was revoked too');
});

test.serial('password sign-in can be turned off per tenant; SSO and API tokens stay', async (t) => {
  await app.ctx.services.admin.createUser(acme, { email: 'local@acme.example', name: 'Local', password: 'a long local password', scopes: ['findings:read'] });
  const login = () => app.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'local@acme.example', password: 'a long local password' } });
  const session = await login();
  t.is(session.statusCode, 200);
  const apiToken = await app.ctx.services.admin.createToken(acme, { name: 'ci', scopes: ['findings:read'], expiresAt: null });
  const off = await app.request('PUT', `/api/admin/tenants/${acme}/sign-in`, { payload: { password_login: false } });
  t.is(off.statusCode, 200, off.raw);
  t.like(off.body.data, { tenant_id: acme, password_login: false, revoked_sessions: 1 });
  t.is((await app.request('GET', '/api/findings', { token: session.body.data.token })).statusCode, 401, 'the password session ended');
  const refused = await login();
  t.is(refused.statusCode, 403);
  t.is(refused.body.error.code, 'password_login_disabled');
  const wrong = await app.request('POST', '/api/user/auth/login', { token: null, payload: { email: 'local@acme.example', password: 'not the password' } });
  t.is(wrong.statusCode, 401, 'a wrong password learns nothing about the switch');
  t.is((await app.request('GET', '/api/findings', { token: apiToken.token })).statusCode, 200);
  idp.accounts.get('carol')!.groups = ['sec-viewers'];
  t.is((await signIn('carol')).role, 'viewer');
  t.like((await app.request('GET', `/api/admin/tenants/${acme}/sign-in`)).body.data, { password_login: false });
  const tenantToken = (await app.tenant()).token;
  t.is((await app.request('PUT', `/api/admin/tenants/${acme}/sign-in`, { token: tenantToken, payload: { password_login: true } })).statusCode, 403);
  await app.request('PUT', `/api/admin/tenants/${acme}/sign-in`, { payload: { password_login: true } });
  t.is((await login()).statusCode, 200);
});

test.serial('a user an administrator disabled stays disabled: the sign-in is refused, nothing is enabled or issued', async (t) => {
  idp.accounts.set('frank', { email: 'frank@acme.example', name: 'Frank', groups: ['sec-viewers'] });
  const first = await signIn('frank');
  // No admin route disables a user yet; the column is what the token check reads.
  await app.ctx.db('users').where({ id: first.user_id }).update({ disabled: true });
  const before = await footprint();
  const { bound, callback: back } = await toProvider('frank');
  const fragment = await callback(back);
  const res = await app.request('POST', '/api/user/auth/sso/exchange', { token: null, payload: { handoff: fragment.get('handoff'), binding: bound } });
  t.is(res.statusCode, 401);
  t.is(res.body.error.code, 'sso_user_disabled');
  t.deepEqual(await footprint(), before);
  t.truthy((await app.ctx.db('users').where({ id: first.user_id }).first('disabled')).disabled);
});

test.serial('a clock a little ahead is within the allowed skew: a token expired 10 s ago (tolerance 30 s) still signs in', async (t) => {
  const { bound, callback: back } = await toProvider('carol');
  app.ctx.services.sso.now = () => Date.now() + (ID_TOKEN_TTL + 10) * 1000;
  try {
    const fragment = await callback(back);
    t.truthy(fragment.get('handoff'), String(fragment.get('error')));
    const res = await app.request('POST', '/api/user/auth/sso/exchange', { token: null, payload: { handoff: fragment.get('handoff'), binding: bound } });
    t.is(res.statusCode, 200, res.raw);
  } finally {
    app.ctx.services.sso.now = () => Date.now();
  }
});
