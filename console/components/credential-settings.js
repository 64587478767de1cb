// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { Loading, Time } from './ui.js';

/**
 * Rotate one credential's value. The field is a password field, emptied as soon as the
 * value is sent: the API never answers a value back, and the page keeps none.
 * @param {{ item: any, onDone: () => void }} props
 */
function Rotate({ item, onDone }) {
  const [value, setValue] = useState('');
  const rotate = useAction(async () => {
    const sent = value;
    setValue('');
    await api.put(`/api/credentials/${encodeURIComponent(item.name)}`, { value: sent });
    onDone();
    return true;
  });
  const id = `cred-rotate-${item.name}`;
  return html`
    <form class="toolbar" aria-label=${`Set a new value for ${item.name}`} onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void rotate.run(); }}>
      <label for=${id}>New value for ${item.name}</label>
      <input id=${id} type="password" autocomplete="new-password" minlength="8" required value=${value} onInput=${(/** @type {any} */ e) => setValue(e.currentTarget.value)} />
      <button type="submit" disabled=${rotate.busy}>Set value</button>
      ${rotate.result ? html`<span role="status">Value replaced.</span>` : null}
      <${ErrorBox} error=${rotate.error} action="set the value" />
    </form>`;
}

/** Credentials actions read their secrets from: names only; values are set and replaced, never shown. */
export function CredentialSettings() {
  const list = useApi((signal) => api.get('/api/credentials', { per_page: 100 }, signal), []);
  const [form, setForm] = useState({ name: '', value: '' });
  const create = useAction(async () => {
    const body = { name: form.name.trim(), value: form.value };
    setForm({ name: '', value: '' });
    await api.post('/api/credentials', body);
    list.reload({ quiet: true });
  });
  const remove = useAction(async (/** @type {string} */ name) => {
    await api.del(`/api/credentials/${encodeURIComponent(name)}`);
    list.reload({ quiet: true });
  });
  return html`
    <form aria-label="New credential" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void create.run(); }}>
      <div class="filters">
        <div><label for="cred-name">Name</label><input id="cred-name" required pattern="[A-Za-z0-9_.\\-]{1,100}" value=${form.name} onInput=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, name: v })); }} /></div>
        <div><label for="cred-value">Value (8 characters or more)</label><input id="cred-value" type="password" autocomplete="new-password" minlength="8" required value=${form.value} onInput=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, value: v })); }} /></div>
        <div><button type="submit" disabled=${create.busy}>Add credential</button></div>
      </div>
      <${ErrorBox} error=${create.error} action="add the credential" />
    </form>
    <${ErrorBox} error=${list.error ?? remove.error} action="manage the credentials" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data ? html`<ul class="plain-list" data-testid="credentials">${list.data.data.map((/** @type {any} */ c) => html`
      <li key=${c.name} data-credential=${c.name}><strong><code>${c.name}</code></strong> · updated <${Time} value=${c.updated_at} />${c.has_sandbox_value ? ' · has a sandbox value' : ''}
        <${Rotate} item=${c} onDone=${() => list.reload({ quiet: true })} />
        <button type="button" class="danger" aria-label=${`Delete ${c.name}`} disabled=${remove.busy} onClick=${() => window.confirm(`Delete the credential ${c.name}? Actions that need it will fail.`) && void remove.run(c.name)}>Delete</button></li>`)}</ul>
      ${!list.data.data.length ? html`<p>No credentials.</p>` : null}` : null}
  `;
}
