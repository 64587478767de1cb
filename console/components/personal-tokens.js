// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { session } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { SecretOnce } from './secret-once.js';
import { Loading, Time } from './ui.js';

/**
 * The signed-in user's own API tokens (POST/GET/DELETE /api/user/tokens): scopes chosen
 * among the session's (a single sign-on user's role), an expiry within the server's limit.
 * Only a signed-in session (password or single sign-on) can make one, not a pasted token.
 */
export function PersonalTokens() {
  const me = session.get().me;
  const list = useApi((signal) => api.get('/api/user/tokens', {}, signal), []);
  const [form, setForm] = useState({ name: '', days: 30, scopes: /** @type {string[]} */ (me?.token.scopes.includes('findings:read') ? ['findings:read'] : []) });
  const [issued, setIssued] = useState(/** @type {string | null} */ (null));
  const create = useAction(async () => {
    const expires = new Date(Date.now() + form.days * 86_400_000).toISOString();
    const answer = await api.post('/api/user/tokens', { name: form.name.trim(), scopes: form.scopes, expires_at: expires });
    setIssued(answer.data.token);
    list.reload({ quiet: true });
  });
  const revoke = useAction(async (/** @type {string} */ id) => {
    await api.del(`/api/user/tokens/${id}`);
    list.reload({ quiet: true });
  });
  if (!me?.user_id || me.token.kind !== 'login') {
    return html`<p class="notice" data-testid="personal-tokens-disabled">Personal tokens are made from a sign-in (email and password, or single sign-on), not with a pasted API token.</p>`;
  }
  const toggle = (/** @type {string} */ s) => setForm((f) => ({ ...f, scopes: f.scopes.includes(s) ? f.scopes.filter((x) => x !== s) : [...f.scopes, s] }));
  return html`
    <form aria-label="New personal token" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void create.run(); }}>
      <div class="filters">
        <div><label for="ptok-name">Name</label><input id="ptok-name" required value=${form.name} onInput=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, name: v })); }} /></div>
        <div><label for="ptok-days">Expires in (days)</label><input id="ptok-days" type="number" min="1" max="3650" required value=${form.days} onInput=${(/** @type {any} */ e) => { const v = Number(e.currentTarget.value); setForm((f) => ({ ...f, days: v })); }} /></div>
      </div>
      <fieldset class="event-kinds"><legend>Scopes (those your sign-in holds)</legend>${me.token.scopes.map((s) => html`<label class="inline"><input type="checkbox" checked=${form.scopes.includes(s)} onChange=${() => toggle(s)} /> ${s}</label>`)}</fieldset>
      <div class="toolbar"><button type="submit" disabled=${create.busy || form.scopes.length === 0}>Make the token</button></div>
      <${ErrorBox} error=${create.error} action="make the token" />
    </form>
    ${issued ? html`<${SecretOnce} label="Your new API token." value=${issued} onDismiss=${() => setIssued(null)} />` : null}
    <${ErrorBox} error=${list.error ?? revoke.error} action="manage your tokens" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data ? html`<ul class="plain-list" data-testid="personal-tokens">${list.data.data.map((/** @type {any} */ t) => html`
      <li key=${t.id}><strong>${t.name}</strong> · ${t.scopes.join(', ')} · expires <${Time} value=${t.expires_at} />
        <button type="button" class="danger" aria-label=${`Revoke ${t.name}`} disabled=${revoke.busy} onClick=${() => void revoke.run(t.id)}>Revoke</button></li>`)}</ul>` : null}
  `;
}
