// @ts-check
import { api, configureApi } from './api.js';
import { adoptToken } from './session.js';

const BINDING = 'rampart.console.sso-binding';

/** What the console says for each refusal code the callback sends back (docs/sso.md). */
export const SSO_MESSAGES = /** @type {Record<string, string>} */ ({
  sso_no_access: 'Your identity provider signed you in, but none of your groups gives access to Rampart. Ask your administrator to add you to a group Rampart maps to a role.',
  sso_ambiguous_tenant: 'Your groups give access to more than one Rampart tenant, and an account belongs to one. Ask your administrator to fix the group mapping.',
  sso_unknown_tenant: 'Your group maps to a tenant that does not exist in Rampart. Ask your administrator to fix the mapping.',
  sso_invalid_token: 'The identity provider\'s answer failed Rampart\'s checks (audience, signature, expiry or nonce), so you were not signed in. Try again; if it keeps happening, tell your administrator.',
  sso_state_replayed: 'This sign-in was already used. Start again.',
  sso_unknown_state: 'This sign-in is not one Rampart started (or it is too old). Start again.',
  sso_expired: 'The sign-in took too long. Start again.',
  sso_provider_error: 'The identity provider refused the sign-in.',
  sso_unavailable: 'The identity provider could not be reached. Try again later.',
  sso_tenant_changed: 'Your account belongs to another tenant than your groups now name. An administrator must remove your Rampart user first.',
  sso_email_taken: 'A Rampart account with a password already uses your email. An administrator must remove it first.',
});

/** @returns {Promise<Array<{ id: string, name: string }>>} */
export async function listProviders() {
  return (await api.get('/api/user/auth/sso/providers')).data;
}

/**
 * Starts a sign-in: a random binding stays in this tab (the server keeps only its hash), and
 * the browser goes to the provider. Only this tab can finish it.
 * @param {string} provider
 */
export async function startSso(provider) {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const binding = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  sessionStorage.setItem(BINDING, binding);
  configureApi(null);
  const { data } = await api.post('/api/user/auth/sso/start', { provider, binding });
  location.assign(data.authorization_url);
}

/**
 * On load: the provider sent the browser back to `#/sso?handoff=…` or `#/sso?error=…`. The
 * fragment is removed from the address bar and history first; then the hand-off and this
 * tab's binding become a session. Answers null when the hash is not a sign-in's return, else
 * the notice to show on the sign-in page (null on success).
 * @returns {Promise<{ handled: boolean, notice: string | null }>}
 */
export async function finishSso() {
  if (!location.hash.startsWith('#/sso?')) return { handled: false, notice: null };
  const params = new URLSearchParams(location.hash.slice('#/sso?'.length));
  history.replaceState(null, '', `${location.pathname}#/`);
  const binding = sessionStorage.getItem(BINDING);
  sessionStorage.removeItem(BINDING);
  const error = params.get('error');
  if (error) return { handled: true, notice: SSO_MESSAGES[error] ?? `Single sign-on failed (${error}).` };
  const handoff = params.get('handoff');
  if (!handoff || !binding) return { handled: true, notice: 'This single sign-on did not start in this browser tab. Start again from here.' };
  try {
    const { data } = await api.post('/api/user/auth/sso/exchange', { handoff, binding });
    await adoptToken(data.token);
    return { handled: true, notice: null };
  } catch (err) {
    configureApi(null);
    return { handled: true, notice: `Single sign-on could not be completed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
