import { createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface Account {
  email: string;
  name: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login; add or change them between sign-ins. */
  accounts: Map<string, Account>;
  /** Rewrites the token endpoint's JSON answer (an attacker between provider and Rampart, or a misbehaving provider). */
  tamper: ((body: Record<string, unknown>) => Record<string, unknown>) | null;
  /** Signs a JWT with the provider's own key (a token the right provider issued, with claims of the test's choosing). */
  sign(header: Record<string, unknown>, payload: Record<string, unknown>): string;
  /** Requests seen by the provider's token endpoint. */
  tokenRequests: number;
  /** Registers the `rampart` client with its redirect URI, when it was not known at start (a server started after the provider). */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (panva's oidc-provider, certified) on loopback over http, with
 * its development login and consent pages (any login name that is in `accounts` signs in;
 * the password is not checked). One confidential client, `rampart`, whose redirect URI is
 * the one given. ID tokens carry email, name and the `groups` claim.
 */
export async function startProvider(redirectUri: string | null, options: { idTokenTtlSeconds?: number } = {}): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  const accounts = new Map<string, Account>();
  const clientSecret = randomBytes(24).toString('base64url');
  const make = (uri: string) => new Provider(issuer, {
    clients: [{ client_id: 'rampart', client_secret: clientSecret, redirect_uris: [uri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    jwks: { keys: [{ ...(privateKey.export({ format: 'jwk' }) as object), kid, alg: 'RS256', use: 'sig' }] },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: true, name: account.name, groups: account.groups }) } : undefined;
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
    scopes: ['openid', 'email', 'profile', 'groups'],
    // Claims in the ID token itself (Rampart reads groups from it), not only at userinfo.
    conformIdTokenClaims: false,
    ttl: { IdToken: options.idTokenTtlSeconds ?? 3600 },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    features: { devInteractions: { enabled: true } },
  } as never);
  const state: TestProvider = {
    issuer,
    clientId: 'rampart',
    clientSecret,
    accounts,
    tamper: null,
    tokenRequests: 0,
    sign: (header, payload) => signJwt(privateKey, { alg: 'RS256', kid, ...header }, payload),
    register: () => {},
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  state.register = (uri: string) => {
    const provider = make(uri);
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path === '/token') {
        state.tokenRequests += 1;
        if (state.tamper && ctx.status === 200) ctx.body = state.tamper(ctx.body as Record<string, unknown>);
      }
    });
    server.removeAllListeners('request');
    server.on('request', provider.callback());
  };
  if (redirectUri) state.register(redirectUri);
  return state;
}

function signJwt(key: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${enc(header)}.${enc(payload)}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
}

/** The claims of a JWT (no check: for tests that rewrite a token). */
export function jwtParts(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [h, p, s] = token.split('.');
  return { header: JSON.parse(Buffer.from(h!, 'base64url').toString()), payload: JSON.parse(Buffer.from(p!, 'base64url').toString()), signature: s! };
}

/**
 * Plays the browser at the provider without a browser: follows the authorization URL,
 * signs in as `login` on the development login page, consents, and answers the URL the
 * provider redirects back to (Rampart's callback with code, state and iss), unfollowed.
 */
export async function signInAtProvider(authorizationUrl: string, login: string): Promise<string> {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  let url = authorizationUrl;
  for (let hops = 0; hops < 20; hops++) {
    const res = await go(url);
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, url).href;
      if (!next.startsWith(new URL(authorizationUrl).origin)) return next;
      url = next;
      continue;
    }
    const page = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form: ${page.slice(0, 300)}`);
    const form: Record<string, string> = page.includes('name="login"') ? { prompt: 'login', login, password: 'any' } : { prompt: 'consent' };
    const posted = await go(new URL(action, url).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    url = new URL(posted.headers.get('location')!, url).href;
  }
  throw new Error('the provider never redirected back');
}
