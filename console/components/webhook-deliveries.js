// @ts-check
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { Loading, Pager, StatusBadge, Time } from './ui.js';

// Deliveries move on in the worker (retries are due seconds later); there is no event for a
// delivery's progress, so while one is still pending the list re-reads itself.
const REFRESH_MS = 1000;

/**
 * The attempts of one delivery, read when the row is opened (not for every row of the list).
 * @param {{ hookId: string, delivery: any }} props
 */
function AttemptsToggle({ hookId, delivery }) {
  const [open, setOpen] = useState(false);
  return html`<details onToggle=${(/** @type {any} */ e) => setOpen(e.currentTarget.open)}><summary>${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}</summary>${open ? html`<${Attempts} hookId=${hookId} delivery=${delivery} />` : null}</details>`;
}

/** @param {{ hookId: string, delivery: any }} props */
function Attempts({ hookId, delivery }) {
  const detail = useApi((signal) => api.get(`/api/webhooks/${hookId}/deliveries/${delivery.id}`, {}, signal), [delivery.id, delivery.attempts, delivery.status]);
  if (detail.error) return html`<${ErrorBox} error=${detail.error} action="load the attempts" onRetry=${detail.reload} />`;
  if (!detail.data) return html`<${Loading} />`;
  return html`<ol class="attempts">${detail.data.data.attempt_log.map((/** @type {any} */ a) => html`
    <li>Attempt ${a.attempt}: <strong>${a.outcome}</strong>${a.response_code !== null ? ` · HTTP ${a.response_code}` : ''} · ${a.duration_ms} ms · <${Time} value=${a.timestamp} />
      ${a.error ? html`<br /><span class="prose">${a.error_code ? html`<code>${a.error_code}</code> ` : null}${a.error}</span>` : null}</li>`)}</ol>`;
}

/**
 * A webhook's deliveries, newest first, with a status filter, each attempt's response code
 * and error, and "Retry" for a failed delivery (a new round of attempts).
 * @param {{ hookId: string, version: number }} props
 */
export function WebhookDeliveries({ hookId, version }) {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const list = useApi((signal) => api.get(`/api/webhooks/${hookId}/deliveries`, { status, page }, signal), [hookId, status, page, version]);
  const retry = useAction(async (/** @type {string} */ id) => {
    await api.post(`/api/webhooks/${hookId}/deliveries/${id}/retry`);
    list.reload({ quiet: true });
  });
  const moving = (list.data?.data ?? []).some((/** @type {any} */ d) => d.status === 'pending' || d.status === 'retried');
  useEffect(() => {
    if (!moving) return undefined;
    const timer = setTimeout(() => list.reload({ quiet: true }), REFRESH_MS);
    return () => clearTimeout(timer);
  }, [moving, list.data]);
  return html`
    <section class="panel" aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Deliveries</h2>
      <div class="toolbar">
        <label for="dlv-status">Status</label>
        <select id="dlv-status" value=${status} onChange=${(/** @type {any} */ e) => { setStatus(e.currentTarget.value); setPage(1); }}>
          ${['', 'pending', 'retried', 'delivered', 'failed'].map((s) => html`<option value=${s}>${s || 'any'}</option>`)}
        </select>
        <button type="button" class="secondary" onClick=${() => list.reload()}>Refresh</button>
      </div>
      <${ErrorBox} error=${retry.error} action="retry the delivery" />
      <${ErrorBox} error=${list.error} action="load the deliveries" onRetry=${list.reload} />
      ${list.loading && !list.data ? html`<${Loading} />` : null}
      ${list.data && html`
        <div class="table-wrap" tabindex="0"><table data-testid="deliveries">
          <caption class="visually-hidden">Deliveries</caption>
          <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Response</th><th scope="col">Attempts</th><th scope="col" class="hide-narrow">Created</th><th scope="col">Actions</th></tr></thead>
          <tbody>${list.data.data.map((/** @type {any} */ d) => html`
            <tr key=${d.id} data-delivery=${d.id}>
              <td><code>${d.event}</code></td>
              <td><${StatusBadge} status=${d.status} />${d.last_error ? html`<br /><small class="prose">${d.last_error}</small>` : null}${d.next_attempt_at && d.status !== 'delivered' && d.status !== 'failed' ? html`<br /><small>next try <${Time} value=${d.next_attempt_at} /></small>` : null}</td>
              <td>${d.response_code !== null ? `HTTP ${d.response_code}` : '—'}</td>
              <td><${AttemptsToggle} hookId=${hookId} delivery=${d} /></td>
              <td class="hide-narrow"><${Time} value=${d.created_at} /></td>
              <td>${d.status === 'failed'
                ? html`<button type="button" aria-label=${`Retry delivery ${d.id}`} disabled=${retry.busy} onClick=${() => void retry.run(d.id)}>Retry</button>`
                : null}</td>
            </tr>`)}
          </tbody>
        </table></div>
        ${!list.data.data.length ? html`<p>No deliveries${status ? ` with status ${status}` : ''}.</p>` : null}
        <${Pager} meta=${list.data.meta} onPage=${setPage} label="Delivery pages" />
      `}
    </section>
  `;
}
