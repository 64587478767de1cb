// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { WEBHOOK_EVENT_KINDS } from '../lib/event-kinds.js';
import { html } from '../lib/html.js';
import { useAction } from '../lib/use-action.js';
import { ErrorBox } from './error-box.js';
import { SEVERITIES } from '../lib/vocabulary.js';

/**
 * Create or edit a webhook. The secret is write-only: an existing one is never shown (the
 * API only says `has_secret`); the field sets a new one, and left empty keeps the old.
 * Custom header values are write-only too (the API returns `header_names`): editing keeps
 * them until "Replace the custom headers", which sends the whole new set (the API's PUT
 * replaces it), values typed again.
 * When editing, the page remounts the form with the saved webhook, so the "Saved." notice is
 * the page's (`notice`).
 * @param {{ webhook?: any, notice?: string | null, onSaved: (webhook: any) => void }} props
 */
export function WebhookForm({ webhook, notice = null, onSaved }) {
  const editing = Boolean(webhook);
  const [form, setForm] = useState(() => ({
    name: webhook?.name ?? '',
    url: webhook?.url ?? '',
    events: /** @type {string[]} */ (webhook?.events ?? ['finding.new']),
    active: webhook?.active ?? true,
    min_severity: webhook?.filters?.min_severity ?? '',
    secret: '',
    /** @type {{ name: string, value: string }[]} */
    headers: [],
    replacingHeaders: !webhook,
  }));
  const idp = editing ? 'whe' : 'whn';
  const save = useAction(async () => {
    /** @type {Record<string, unknown>} */
    const body = { name: form.name.trim(), url: form.url.trim(), events: form.events, active: form.active, filters: { ...(webhook?.filters ?? {}), min_severity: form.min_severity || undefined } };
    if (form.secret) body.secret = form.secret;
    const headers = Object.fromEntries(form.headers.filter((h) => h.name.trim()).map((h) => [h.name.trim(), h.value]));
    if (editing ? form.replacingHeaders : Object.keys(headers).length) body.headers = headers;
    const answer = editing ? await api.put(`/api/webhooks/${webhook.id}`, body) : await api.post('/api/webhooks', body);
    // Typed secrets are dropped at once: the form must not keep them around after they were sent.
    setForm((f) => ({ ...f, secret: '', headers: editing ? [] : f.headers.map((h) => ({ ...h, value: '' })), replacingHeaders: !editing }));
    onSaved(answer.data);
    return answer.data;
  });
  const text = (/** @type {'name' | 'url' | 'secret' | 'min_severity'} */ key) => (/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, [key]: v })); };
  const setHeader = (/** @type {number} */ i, /** @type {'name' | 'value'} */ key) => (/** @type {any} */ e) => {
    const v = e.currentTarget.value;
    setForm((f) => ({ ...f, headers: f.headers.map((h, j) => (j === i ? { ...h, [key]: v } : h)) }));
  };
  const addHeader = () => setForm((f) => ({ ...f, headers: [...f.headers, { name: '', value: '' }] }));
  const removeHeader = (/** @type {number} */ i) => setForm((f) => ({ ...f, headers: f.headers.filter((_, j) => j !== i) }));
  // The names come back to be typed over; the values were never sent to the browser.
  const replaceHeaders = () => setForm((f) => ({ ...f, replacingHeaders: true, headers: (webhook?.header_names ?? []).map((/** @type {string} */ name) => ({ name, value: '' })) }));
  const toggle = (/** @type {string} */ kind) => setForm((f) => ({ ...f, events: f.events.includes(kind) ? f.events.filter((k) => k !== kind) : [...f.events, kind] }));
  return html`
    <form aria-label=${editing ? 'Edit webhook' : 'New webhook'} onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void save.run(); }}>
      <div class="filters">
        <div><label for=${`${idp}-name`}>Name</label><input id=${`${idp}-name`} required value=${form.name} onInput=${text('name')} /></div>
        <div><label for=${`${idp}-url`}>Endpoint URL</label><input id=${`${idp}-url`} class="wide" type="url" required value=${form.url} onInput=${text('url')} /></div>
        <div><label for=${`${idp}-sev`}>Minimum severity</label>
          <select id=${`${idp}-sev`} value=${form.min_severity} onChange=${text('min_severity')}>${['', ...SEVERITIES].map((s) => html`<option value=${s}>${s || 'any'}</option>`)}</select></div>
        <div><label for=${`${idp}-secret`}>${editing ? 'Set a new secret' : 'Signing secret'}</label>
          <input id=${`${idp}-secret`} type="password" autocomplete="new-password" minlength="16" value=${form.secret} onInput=${text('secret')} aria-describedby=${`${idp}-secret-hint`} />
          <p class="hint" id=${`${idp}-secret-hint`}>${editing
            ? (webhook.has_secret ? 'A secret is set and never shown. Leave empty to keep it.' : 'No secret is set: deliveries are not signed.')
            : '16 characters or more; optional. It is never shown again.'}</p></div>
      </div>
      <fieldset class="event-kinds"><legend>Events</legend>
        ${WEBHOOK_EVENT_KINDS.map((kind) => html`<label class="inline"><input type="checkbox" checked=${form.events.includes(kind)} onChange=${() => toggle(kind)} /> ${kind}</label>`)}
      </fieldset>
      <fieldset class="header-fields"><legend>Custom headers</legend>
        ${form.replacingHeaders
          ? html`${form.headers.map((h, i) => html`<div class="filters">
                <div><label for=${`${idp}-h${i}-name`}>Header ${i + 1} name</label><input id=${`${idp}-h${i}-name`} required value=${h.name} onInput=${setHeader(i, 'name')} /></div>
                <div><label for=${`${idp}-h${i}-value`}>Header ${i + 1} value</label><input id=${`${idp}-h${i}-value`} type="password" autocomplete="off" required value=${h.value} onInput=${setHeader(i, 'value')} /></div>
                <div><button type="button" class="secondary" onClick=${() => removeHeader(i)}>Remove header ${i + 1}</button></div>
              </div>`)}
              <p class="hint">Sent with every delivery (an Authorization header for a collector, say). Values are stored encrypted and never shown again.${editing ? ' Saving replaces every custom header with these.' : ''}</p>
              <button type="button" class="secondary" onClick=${addHeader}>Add a header</button>`
          : html`<p>${webhook.header_names.length ? `${webhook.header_names.join(', ')} (values never shown)` : 'None.'}</p>
              <button type="button" class="secondary" onClick=${replaceHeaders}>Replace the custom headers</button>`}
      </fieldset>
      <label class="inline"><input type="checkbox" checked=${form.active} onChange=${(/** @type {any} */ e) => { const v = e.currentTarget.checked; setForm((f) => ({ ...f, active: v })); }} /> Active</label>
      <div class="toolbar"><button type="submit" disabled=${save.busy}>${editing ? 'Save webhook' : 'Create webhook'}</button>
        ${notice && editing ? html`<span role="status">${notice}</span>` : null}</div>
      <${ErrorBox} error=${save.error} action=${editing ? 'save the webhook' : 'create the webhook'} />
    </form>
  `;
}
