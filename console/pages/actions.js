// @ts-check
import { ErrorBox } from '../components/error-box.js';
import { Loading, Pager } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';

const TYPES = ['', 'notification', 'remediation', 'webhook', 'script', 'approval'];

/** The tenant's actions: search and type filter (in the URL), each linking to its page. */
export default function Actions({ query }) {
  const listQuery = { search: query.search ?? '', type: query.type ?? '', page: query.page ?? '' };
  const list = useApi((signal) => api.get('/api/actions', listQuery, signal), [JSON.stringify(listQuery)]);
  return html`
    <h1 tabindex="-1">Actions</h1>
    <p><a href=${href('/approvals')}>Approvals inbox</a> · <a href=${href('/playbooks')}>Playbooks</a></p>
    <form class="filters" role="search" aria-label="Filter actions" onSubmit=${(/** @type {any} */ e) => { e.preventDefault(); updateQuery({ search: e.currentTarget.elements.namedItem('search').value || null, page: null }); }}>
      <div><label for="act-search">Search name and description</label><input id="act-search" name="search" value=${query.search ?? ''} /></div>
      <div><label for="act-type">Type</label>
        <select id="act-type" value=${query.type ?? ''} onChange=${(/** @type {any} */ e) => updateQuery({ type: e.currentTarget.value || null, page: null })}>${TYPES.map((t) => html`<option value=${t}>${t || 'any'}</option>`)}</select></div>
      <div><button type="submit">Search</button></div>
    </form>
    <${ErrorBox} error=${list.error} action="load the actions" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0"><table data-testid="actions">
        <caption class="visually-hidden">Actions</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Executor</th><th scope="col" class="hide-narrow">Version</th><th scope="col">Usable</th></tr></thead>
        <tbody>${list.data.data.map((/** @type {any} */ a) => html`
          <tr key=${a.id}>
            <td><a href=${href(`/actions/${a.id}`)}>${a.name}</a>${a.description ? html`<br /><small>${a.description}</small>` : null}</td>
            <td>${a.type}</td><td>${a.executor}</td><td class="hide-narrow">${a.version}</td>
            <td>${a.enabled ? 'enabled' : 'disabled (sandbox only)'}</td>
          </tr>`)}
        </tbody>
      </table></div>
      ${!list.data.data.length ? html`<p>No actions.</p>` : null}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Action pages" />
    `}
  `;
}
