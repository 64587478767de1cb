// @ts-check
import { ErrorBox } from '../components/error-box.js';
import { PlaybookImport } from '../components/playbook-import.js';
import { Loading, NeedsScope, Pager } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';

/** The tenant's playbooks: search (in the URL), each linking to its flow and runs; CACAO import. */
export default function Playbooks({ query }) {
  const listQuery = { search: query.search ?? '', page: query.page ?? '' };
  const list = useApi((signal) => api.get('/api/playbooks', listQuery, signal), [JSON.stringify(listQuery)]);
  return html`
    <h1 tabindex="-1">Playbooks</h1>
    <details class="panel"><summary>Import a CACAO v2 playbook ${!can('playbooks:write') ? html`<${NeedsScope} scope="playbooks:write" />` : null}</summary>
      ${can('playbooks:write') ? html`<${PlaybookImport} />` : null}
    </details>
    <form class="filters" role="search" aria-label="Filter playbooks" onSubmit=${(/** @type {any} */ e) => { e.preventDefault(); updateQuery({ search: e.currentTarget.elements.namedItem('search').value || null, page: null }); }}>
      <div><label for="pb-search">Search name and description</label><input id="pb-search" name="search" value=${query.search ?? ''} /></div>
      <div><button type="submit">Search</button></div>
    </form>
    <${ErrorBox} error=${list.error} action="load the playbooks" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0"><table data-testid="playbooks">
        <caption class="visually-hidden">Playbooks</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Trigger</th><th scope="col">Steps</th><th scope="col" class="hide-narrow">Version</th><th scope="col">State</th></tr></thead>
        <tbody>${list.data.data.map((/** @type {any} */ p) => html`
          <tr key=${p.id}>
            <td><a href=${href(`/playbooks/${p.id}`)}>${p.name}</a>${p.tags.length ? html`<br /><small>${p.tags.join(', ')}</small>` : null}</td>
            <td><code>${p.trigger.event}</code></td><td>${p.step_count}</td><td class="hide-narrow">${p.version}</td>
            <td>${p.enabled ? 'enabled' : 'disabled'}</td>
          </tr>`)}
        </tbody>
      </table></div>
      ${!list.data.data.length ? html`<p>No playbooks.</p>` : null}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Playbook pages" />
    `}
  `;
}
