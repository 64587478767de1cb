// @ts-check
import { useEffect, useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { html } from '../lib/html.js';
import { signInWithPassword, signInWithToken } from '../lib/session.js';
import { listProviders, startSso } from '../lib/sso.js';

/**
 * Three ways in: single sign-on through a configured OpenID Connect provider (the provider
 * sends the browser back, and console/lib/sso.js finishes it), email and password (a login token from `POST /api/user/auth/login`, revoked
 * at sign-out), or an API token pasted in (checked with `GET /api/user/me`). Either token
 * stays in this tab only.
 * @param {{ notice: string | null }} props
 */
export default function SignIn({ notice }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(/** @type {null | 'password' | 'token' | 'sso'} */ (null));
  const [providers, setProviders] = useState(/** @type {Array<{ id: string, name: string }>} */ ([]));
  useEffect(() => {
    // No provider configured, or the list unreachable: the other two ways remain.
    listProviders().then(setProviders, () => setProviders([]));
  }, []);
  const [error, setError] = useState(/** @type {{ error: unknown, action: string } | null} */ (null));

  /** @param {'password' | 'token' | 'sso'} kind @param {() => Promise<unknown>} run */
  const submit = async (kind, run) => {
    setBusy(kind);
    setError(null);
    try {
      await run();
    } catch (err) {
      setError({ error: err, action: kind === 'password' ? 'sign in with that email and password' : kind === 'sso' ? 'start single sign-on' : 'sign in with that token' });
      setBusy(null);
    }
  };

  return html`
    <main class="sign-in" id="main" tabindex="-1">
      <h1>Sign in to Rampart</h1>
      ${notice && html`<p class="notice" role="status">${notice}</p>`}
      ${error && html`<${ErrorBox} error=${error.error} action=${error.action} />`}
      ${providers.length > 0 && html`
        <section class="sign-in-sso" aria-labelledby="sso-heading">
          <h2 id="sso-heading">With your organisation's account</h2>
          ${providers.map((p) => html`
            <button type="button" disabled=${busy !== null} onClick=${() => void submit('sso', () => startSso(p.id))}>${busy === 'sso' ? 'Going to your provider…' : `Sign in with ${p.name}`}</button>
          `)}
          <p class="hint">Your identity provider signs you in; your groups there decide what you may do here.</p>
        </section>
      `}
      <div class="sign-in-forms">
        <form aria-labelledby="password-heading" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void submit('password', () => signInWithPassword(email.trim(), password)); }}>
          <h2 id="password-heading">With email and password</h2>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value=${email} onInput=${(/** @type {any} */ e) => setEmail(e.currentTarget.value)} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required value=${password} onInput=${(/** @type {any} */ e) => setPassword(e.currentTarget.value)} />
          <button type="submit" disabled=${busy !== null}>${busy === 'password' ? 'Signing in…' : 'Sign in'}</button>
          <p class="hint">You get a login token that lasts a limited time; signing out revokes it.</p>
        </form>
        <form aria-labelledby="token-heading" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void submit('token', () => signInWithToken(token)); }}>
          <h2 id="token-heading">With an API token</h2>
          <label for="api-token">API token</label>
          <input id="api-token" name="api-token" type="password" autocomplete="off" spellcheck=${false} required pattern="\\S+" value=${token} onInput=${(/** @type {any} */ e) => setToken(e.currentTarget.value)} />
          <button type="submit" disabled=${busy !== null}>${busy === 'token' ? 'Checking…' : 'Use this token'}</button>
          <p class="hint">The token is kept in this browser tab only (session storage) and sent in the Authorization header; closing the tab forgets it. Signing out does not revoke an API token.</p>
        </form>
      </div>
    </main>
  `;
}
