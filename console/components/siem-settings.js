// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { EVENT_KINDS } from '../lib/event-kinds.js';
import { html } from '../lib/html.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { Loading, Time } from './ui.js';

const SIEM_KINDS = EVENT_KINDS.filter((k) => k !== 'webhook.test');

/** @param {{ onCreated: () => void }} props */
function NewSiem({ onCreated }) {
  const [form, setForm] = useState({ name: '', protocol: 'tcp_tls', host: '', port: '6514', format: 'cef', events: ['finding.new', 'scan.completed'] });
  const create = useAction(async () => {
    await api.post('/api/integrations/siem', { name: form.name.trim(), protocol: form.protocol, host: form.host.trim(), port: Number(form.port), format: form.format, events: form.events });
    onCreated();
  });
  const text = (/** @type {'name' | 'protocol' | 'host' | 'port' | 'format'} */ k) => (/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, [k]: v })); };
  const toggle = (/** @type {string} */ kind) => setForm((f) => ({ ...f, events: f.events.includes(kind) ? f.events.filter((k) => k !== kind) : [...f.events, kind] }));
  return html`
    <form aria-label="New SIEM integration" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void create.run(); }}>
      <div class="filters">
        <div><label for="siem-name">Name</label><input id="siem-name" required value=${form.name} onInput=${text('name')} /></div>
        <div><label for="siem-protocol">Protocol</label><select id="siem-protocol" value=${form.protocol} onChange=${text('protocol')}>
          <option value="tcp_tls">syslog over TLS (RFC 5425)</option><option value="tcp">syslog over TCP</option><option value="udp">syslog over UDP</option></select></div>
        <div><label for="siem-host">Collector host</label><input id="siem-host" required value=${form.host} onInput=${text('host')} /></div>
        <div><label for="siem-port">Port</label><input id="siem-port" class="narrow" type="number" min="1" max="65535" required value=${form.port} onInput=${text('port')} /></div>
        <div><label for="siem-format">Format</label><select id="siem-format" value=${form.format} onChange=${text('format')}><option value="cef">CEF</option><option value="rfc5424">RFC 5424 structured</option></select></div>
      </div>
      <fieldset class="event-kinds"><legend>Events to forward</legend>
        ${SIEM_KINDS.map((kind) => html`<label class="inline"><input type="checkbox" checked=${form.events.includes(kind)} onChange=${() => toggle(kind)} /> ${kind}</label>`)}
      </fieldset>
      <div class="toolbar"><button type="submit" disabled=${create.busy}>Create integration</button></div>
      <${ErrorBox} error=${create.error} action="create the integration" />
    </form>
  `;
}

/** @param {{ item: any, onChanged: () => void }} props */
function SiemRow({ item, onChanged }) {
  const test = useAction(async () => (await api.post(`/api/integrations/siem/${item.id}/test`)).data);
  const toggle = useAction(async () => {
    await api.put(`/api/integrations/siem/${item.id}`, { active: !item.active });
    onChanged();
  });
  const s = item.status;
  return html`
    <li class="panel" data-siem=${item.id}>
      <h3>${item.name} <small>${item.protocol} → ${item.host}:${item.port}, ${item.format}</small></h3>
      <dl class="facts">
        <dt>State</dt><dd>${item.active ? 'forwarding' : 'paused'}</dd>
        <dt>Forwarding cursor</dt><dd data-testid="siem-status">${s.last_sent_at ? html`last event sent <${Time} value=${s.last_sent_at} />` : 'nothing sent yet'}${s.last_error ? html`; last error <${Time} value=${s.last_error_at} />: ${s.last_error}` : ''}</dd>
        <dt>Events</dt><dd>${item.events.join(', ')}</dd>
      </dl>
      <div class="toolbar">
        <button type="button" disabled=${test.busy} onClick=${() => void test.run()}>Send a test message</button>
        <button type="button" class="secondary" disabled=${toggle.busy} onClick=${() => void toggle.run()}>${item.active ? 'Pause forwarding' : 'Resume forwarding'}</button>
        ${test.result ? html`<span role="status" data-testid="siem-test-result">${test.result.delivered ? `Delivered in ${test.result.duration_ms} ms.` : `Not delivered: ${test.result.error}`}</span>` : null}
      </div>
      <${ErrorBox} error=${test.error ?? toggle.error} action="reach the integration" />
    </li>`;
}

/** SIEM integrations (syslog forwarders): create, test, pause, and where each one's cursor is. */
export function SiemSettings() {
  const list = useApi((signal) => api.get('/api/integrations/siem', { per_page: 100 }, signal), []);
  return html`
    <details class="panel"><summary>New SIEM integration</summary><${NewSiem} onCreated=${() => list.reload({ quiet: true })} /></details>
    <${ErrorBox} error=${list.error} action="load the SIEM integrations" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data ? html`<ul class="plain-list" data-testid="siem-list">${list.data.data.map((/** @type {any} */ i) => html`<${SiemRow} key=${i.id} item=${i} onChanged=${() => list.reload({ quiet: true })} />`)}</ul>
      ${!list.data.data.length ? html`<p>No SIEM integrations.</p>` : null}` : null}
    <div class="toolbar"><button type="button" class="secondary" onClick=${() => list.reload()}>Refresh the status</button></div>
  `;
}
