// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { can, session } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { SecretOnce } from './secret-once.js';
import { Loading, NeedsScope, Time } from './ui.js';

const TENANT_SCOPES = ['assets:read', 'assets:write', 'scan:read', 'scan:write', 'findings:read', 'findings:write', 'actions:read', 'actions:write', 'actions:execute', 'playbooks:read', 'playbooks:write', 'playbooks:run', 'webhooks:manage', 'events:read', 'integrations:manage'];

/** @param {{ tenantId: string }} props */
function Tokens({ tenantId }) {
  const list = useApi((signal) => api.get(`/api/admin/tenants/${tenantId}/tokens`, { per_page: 100 }, signal), [tenantId]);
  const [form, setForm] = useState({ name: '', scopes: /** @type {string[]} */ (['findings:read']) });
  const [issued, setIssued] = useState(/** @type {string | null} */ (null));
  const create = useAction(async () => {
    const answer = await api.post(`/api/admin/tenants/${tenantId}/tokens`, { name: form.name.trim(), scopes: form.scopes });
    setIssued(answer.data.token);
    list.reload({ quiet: true });
  });
  const revoke = useAction(async (/** @type {string} */ id) => {
    await api.del(`/api/admin/tokens/${id}`);
    list.reload({ quiet: true });
  });
  const mine = session.get().me?.token.id;
  const toggle = (/** @type {string} */ s) => setForm((f) => ({ ...f, scopes: f.scopes.includes(s) ? f.scopes.filter((x) => x !== s) : [...f.scopes, s] }));
  return html`
    <details><summary>New API token</summary>
      <form aria-label="New API token" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void create.run(); }}>
        <div class="filters"><div><label for="tok-name">Name</label><input id="tok-name" required value=${form.name} onInput=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, name: v })); }} /></div></div>
        <fieldset class="event-kinds"><legend>Scopes</legend>${TENANT_SCOPES.map((s) => html`<label class="inline"><input type="checkbox" checked=${form.scopes.includes(s)} onChange=${() => toggle(s)} /> ${s}</label>`)}</fieldset>
        <div class="toolbar"><button type="submit" disabled=${create.busy}>Issue token</button></div>
        <${ErrorBox} error=${create.error} action="issue the token" />
      </form>
    </details>
    ${issued ? html`<${SecretOnce} label="The new API token." value=${issued} onDismiss=${() => setIssued(null)} />` : null}
    <${ErrorBox} error=${list.error ?? revoke.error} action="manage the tokens" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data ? html`<ul class="plain-list" data-testid="tokens">${list.data.data.map((/** @type {any} */ t) => html`
      <li key=${t.id}><strong>${t.name}</strong> <small><code>${t.id}</code></small> · ${(t.scopes ?? []).join(', ')} · created <${Time} value=${t.created_at} />${t.expires_at ? html` · expires <${Time} value=${t.expires_at} />` : ''}
        ${t.id === mine ? html` <em>(this console's token)</em>` : html` <button type="button" class="danger" aria-label=${`Revoke ${t.name}`} disabled=${revoke.busy} onClick=${() => window.confirm(`Revoke the token ${t.name}? Whatever uses it stops working.`) && void revoke.run(t.id)}>Revoke</button>`}</li>`)}</ul>` : null}
  `;
}

/**
 * The tenant's API tokens. Tokens are managed through the admin routes only, so this
 * works when the console's token has the `admin` scope; otherwise it says so instead of
 * offering controls that would be refused.
 */
export function TokenSettings() {
  const tenantId = session.get().me?.tenant.id;
  if (!can('admin') || !tenantId) {
    return html`<p class="notice" data-testid="tokens-disabled">Managing API tokens <${NeedsScope} scope="admin" />: the API issues and revokes tokens through its administrator routes only. Ask an administrator, or sign in with a token that has it.</p>`;
  }
  return html`<${Tokens} tenantId=${tenantId} />`;
}
