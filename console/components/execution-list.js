// @ts-check
import { useState } from 'preact/hooks';
import { useLiveReload } from '../app/live.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { Loading, Pager, StatusBadge, Time } from './ui.js';

/**
 * An action's executions, newest first, refreshed live by the action.* events.
 * @param {{ actionId: string, version: number }} props
 */
export function ExecutionList({ actionId, version }) {
  const [page, setPage] = useState(1);
  const list = useApi((signal) => api.get(`/api/actions/${actionId}/executions`, { page }, signal), [actionId, page, version]);
  useLiveReload(['action.triggered', 'action.completed', 'action.failed'], list.reload);
  return html`
    <section class="panel" aria-labelledby="exec-h">
      <h2 id="exec-h">Executions</h2>
      <${ErrorBox} error=${list.error} action="load the executions" onRetry=${list.reload} />
      ${list.loading && !list.data ? html`<${Loading} />` : null}
      ${list.data && html`
        <div class="table-wrap" tabindex="0"><table data-testid="executions">
          <caption class="visually-hidden">Executions</caption>
          <thead><tr><th scope="col">Execution</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Kind</th><th scope="col">Created</th><th scope="col" class="hide-narrow">Duration</th></tr></thead>
          <tbody>${list.data.data.map((/** @type {any} */ x) => html`
            <tr key=${x.execution_id}>
              <td><a href=${href(`/actions/executions/${x.execution_id}`)}><code>${x.execution_id}</code></a></td>
              <td><${StatusBadge} status=${x.status} />${x.error ? html`<br /><small>${x.error.code}</small>` : null}</td>
              <td class="hide-narrow">${[x.dry_run ? 'dry run' : null, x.sandbox ? 'sandbox' : null, x.approval_id ? 'needs approval' : null].filter(Boolean).join(', ') || 'run'}</td>
              <td><${Time} value=${x.created_at} /></td>
              <td class="hide-narrow">${x.duration_seconds === null ? '—' : `${x.duration_seconds} s`}</td>
            </tr>`)}
          </tbody>
        </table></div>
        ${!list.data.data.length ? html`<p>Never run.</p>` : null}
        <${Pager} meta=${list.data.meta} onPage=${setPage} label="Execution pages" />
      `}
    </section>
  `;
}
