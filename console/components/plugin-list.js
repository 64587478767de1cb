// @ts-check
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { Loading } from './ui.js';

/** The plugins the server loaded (read-only: plugins are installed by the operator). */
export function PluginList() {
  const list = useApi((signal) => api.get('/api/plugins', { per_page: 100 }, signal), []);
  if (list.error) return html`<${ErrorBox} error=${list.error} action="load the plugins" onRetry=${list.reload} />`;
  if (!list.data) return html`<${Loading} />`;
  return html`
    <div class="table-wrap" tabindex="0"><table data-testid="plugins">
      <caption class="visually-hidden">Loaded plugins</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Version</th><th scope="col" class="hide-narrow">Source</th><th scope="col" class="hide-narrow">What it adds</th></tr></thead>
      <tbody>${list.data.data.map((/** @type {any} */ p) => html`
        <tr key=${p.name}><td><strong>${p.name}</strong>${p.description ? html`<br /><small>${p.description}</small>` : null}</td><td>${p.kind}</td><td>${p.version}</td><td class="hide-narrow">${p.source}</td>
          <td class="hide-narrow">${[p.scan_types?.length ? `scan types: ${p.scan_types.join(', ')}` : null, p.executor_kind ? `executor: ${p.executor_kind}` : null, p.format ? `format: ${p.format}` : null, p.checks?.length ? `${p.checks.length} checks` : null].filter(Boolean).join(' · ') || '—'}</td></tr>`)}
      </tbody>
    </table></div>
  `;
}
