// @ts-check
import { ApiError, api, configureApi } from './api.js';
import { finishSso } from './sso.js';
import { createStore } from './store.js';

/**
 * Who is signed in. The token lives in this tab's sessionStorage (gone when the tab
 * closes) and in memory: never in a cookie, never in a URL. The caller's scopes come from
 * `GET /api/user/me` (tenant, token kind and scopes), the same endpoint a script uses.
 *
 * @typedef {{ tenant: { id: string, name: string, tier: string }, token: { id: string, name: string, kind: string, scopes: string[], expires_at: string | null }, user_id: string | null }} WhoAmI
 * @typedef {{ status: 'checking' | 'signed-out' | 'signed-in', me: WhoAmI | null, notice: string | null }} SessionState
 */

const KEY = 'rampart.console.token';

/** @type {import('./store.js').Store<SessionState>} */
export const session = createStore(/** @type {SessionState} */ ({ status: 'checking', me: null, notice: null }));

/** @type {ReturnType<typeof setTimeout> | undefined} */
let expiryTimer;

/** @param {string | null} notice */
function forget(notice) {
  clearTimeout(expiryTimer);
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Storage can be disabled; the token was then only in memory.
  }
  configureApi(null);
  session.set({ status: 'signed-out', me: null, notice });
}

/** @param {ApiError} error */
function onUnauthorized(error) {
  // While signing in, the sign-in form shows the refusal itself.
  if (session.get().status !== 'signed-in') return;
  forget(`You were signed out: the API refused the token (${error.code}). Sign in again.`);
}

/** @param {string} token */
async function adopt(token) {
  configureApi(token, onUnauthorized);
  /** @type {WhoAmI} */
  const me = (await api.get('/api/user/me')).data;
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Without storage the session lasts until the page is reloaded.
  }
  clearTimeout(expiryTimer);
  if (me.token.expires_at) {
    const left = Date.parse(me.token.expires_at) - Date.now();
    // setTimeout takes at most 2^31-1 ms; an expiry further away is caught by the 401 anyway.
    if (left < 2 ** 31 - 1) expiryTimer = setTimeout(() => forget('Your session expired. Sign in again.'), Math.max(0, left));
  }
  session.set({ status: 'signed-in', me, notice: null });
  return me;
}

/**
 * A login token from elsewhere (single sign-on's exchange, console/lib/sso.js): kept and checked like the others.
 * @param {string} token
 */
export function adoptToken(token) {
  return adopt(token);
}

/**
 * Email and password through `POST /api/user/auth/login`; the answer is a short-lived login token.
 * @param {string} email
 * @param {string} password
 */
export async function signInWithPassword(email, password) {
  configureApi(null);
  const { data } = await api.post('/api/user/auth/login', { email, password });
  return adopt(data.token);
}

/**
 * A pasted API token, checked with `GET /api/user/me` before it is kept.
 * @param {string} token
 */
export async function signInWithToken(token) {
  try {
    return await adopt(token.trim());
  } catch (err) {
    configureApi(null);
    throw err;
  }
}

/**
 * A login token is revoked on the server (`POST /api/user/auth/logout`); a pasted API token
 * is only forgotten here, since it may be in use elsewhere (revoking it is an admin's act).
 */
export async function signOut() {
  const me = session.get().me;
  let notice = 'You are signed out.';
  if (me?.token.kind === 'login') {
    try {
      await api.post('/api/user/auth/logout');
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) notice = `Signed out here, but the server did not confirm the token was revoked (${err instanceof ApiError ? err.code : 'error'}); it expires on its own.`;
    }
  }
  forget(notice);
}

/**
 * Ends the session here without calling the API (the token is already refused).
 * @param {string} notice
 */
export function endSession(notice) {
  forget(notice);
}

/**
 * On load: a return from single sign-on is finished first; else a token kept in this tab
 * is checked again (it may have expired or been revoked).
 */
export async function restoreSession() {
  const sso = await finishSso();
  if (sso.handled) {
    if (sso.notice !== null || session.get().status !== 'signed-in') forget(sso.notice);
    return;
  }
  let token = null;
  try {
    token = sessionStorage.getItem(KEY);
  } catch {
    token = null;
  }
  if (!token) return forget(null);
  try {
    await adopt(token);
  } catch (err) {
    forget(err instanceof ApiError && err.status !== 401 ? `Could not check the saved session: ${err.message}` : null);
  }
}

/**
 * Whether the signed-in token holds a scope (scopes are exact: `admin` does not imply the others).
 * @param {string} scope
 */
export function can(scope) {
  return session.get().me?.token.scopes.includes(scope) ?? false;
}

/**
 * The first of `scopes` the token lacks, for a "needs …" reason; null when it has them all.
 * @param {string[]} scopes
 */
export function missingScope(scopes) {
  return scopes.find((scope) => !can(scope)) ?? null;
}
