// @ts-check
import { ErrorBox } from '../components/error-box.js';
import { Loading, Pager, Time } from '../components/ui.js';
import { WebhookForm } from '../components/webhook-form.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, navigate, updateQuery } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';

/** @param {{ hook: any }} props */
function HookState({ hook }) {
  if (hook.active) return html`<span class="badge status">${hook.failing_since ? 'active, failing' : 'active'}</span>`;
  return html`<span class="badge status">${hook.disabled_reason === 'failing' ? 'disabled: failing' : 'inactive'}</span>`;
}

/** Webhooks of the tenant: list and create. Details, deliveries and retries are on each webhook's page. */
export default function Webhooks({ query }) {
  const page = query.page ?? '';
  const list = useApi((signal) => api.get('/api/webhooks', { page }, signal), [page]);
  return html`
    <h1 tabindex="-1">Webhooks</h1>
    <details class="panel"><summary>New webhook</summary>
      <${WebhookForm} onSaved=${(/** @type {any} */ hook) => navigate(`/webhooks/${hook.id}`)} />
    </details>
    <${ErrorBox} error=${list.error} action="load the webhooks" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0"><table data-testid="webhooks">
        <caption class="visually-hidden">Webhooks</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Endpoint</th><th scope="col">State</th><th scope="col" class="hide-narrow">Events</th><th scope="col" class="hide-narrow">Failing since</th></tr></thead>
        <tbody>${list.data.data.map((/** @type {any} */ w) => html`
          <tr key=${w.id}>
            <td><a href=${href(`/webhooks/${w.id}`)}>${w.name}</a></td>
            <td class="break"><code>${w.url}</code></td>
            <td><${HookState} hook=${w} /></td>
            <td class="hide-narrow">${w.events.join(', ')}</td>
            <td class="hide-narrow"><${Time} value=${w.failing_since} empty="—" /></td>
          </tr>`)}
        </tbody>
      </table></div>
      ${!list.data.data.length ? html`<p>No webhooks yet.</p>` : null}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Webhook pages" />
    `}
  `;
}
