// @ts-check
import { useState } from 'preact/hooks';
import { useLiveReload } from '../app/live.js';
import { AssetImport } from '../components/asset-import.js';
import { ErrorBox } from '../components/error-box.js';
import { Loading, NeedsScope, Pager, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, navigate, updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';
import { ASSET_TYPES } from '../lib/vocabulary.js';

const ASSET_STATUSES = ['active', 'inactive', 'pending_verification'];
const LIST_KEYS = ['type', 'tag', 'status', 'search', 'sort_by', 'sort_order', 'page', 'per_page'];

/** Splits "a, b ,c" into tags. */
export const parseTags = (/** @type {string} */ text) => text.split(',').map((t) => t.trim()).filter(Boolean);

function AddAsset() {
  const [form, setForm] = useState({ name: '', type: 'domain', tags: '' });
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown }} */ ({ busy: false, error: null }));
  const save = async () => {
    setState({ busy: true, error: null });
    try {
      const created = (await api.post('/api/assets', { name: form.name.trim(), type: form.type, tags: parseTags(form.tags) })).data;
      navigate(`/assets/${created.id}`);
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  /** @param {string} key */
  const field = (key) => (/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, [key]: v })); };
  return html`
    <form class="filters" aria-label="Add an asset" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void save(); }}>
      <div><label for="new-name">Name (domain, IP, URL or CIDR)</label><input id="new-name" required value=${form.name} onInput=${field('name')} /></div>
      <div><label for="new-type">Type</label><select id="new-type" value=${form.type} onChange=${field('type')}>${ASSET_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select></div>
      <div><label for="new-tags">Tags (comma-separated)</label><input id="new-tags" value=${form.tags} onInput=${field('tags')} /></div>
      <div><button type="submit" disabled=${state.busy}>Add asset</button></div>
    </form>
    ${state.error ? html`<${ErrorBox} error=${state.error} action="add the asset" />` : null}
  `;
}

/** The asset list with every filter and sort of GET /api/assets, in the URL; adding and importing. */
export default function Assets({ query }) {
  const listQuery = Object.fromEntries(LIST_KEYS.filter((k) => query[k]).map((k) => [k, query[k]]));
  const list = useApi((signal) => api.get('/api/assets', listQuery, signal), [JSON.stringify(listQuery)]);
  useLiveReload(['asset.created', 'asset.verified'], list.reload, 1500);
  const set = (/** @type {Record<string, unknown>} */ patch) => updateQuery({ ...patch, page: null });
  const text = (/** @type {string} */ key) => (/** @type {any} */ e) => set({ [key]: e.currentTarget.value.trim() || null });
  const writable = can('assets:write');
  return html`
    <h1 tabindex="-1">Assets</h1>
    <details class="panel">
      <summary>Add an asset or import a file${writable ? '' : ' '}${!writable ? html`<${NeedsScope} scope="assets:write" />` : null}</summary>
      ${writable ? html`<h2>Add one</h2><${AddAsset} /><h2>Import many</h2><${AssetImport} onImported=${() => list.reload({ quiet: true })} />` : null}
    </details>
    <form class="filters" role="search" aria-label="Filter assets" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <div><label for="a-search">Search name and metadata</label><input id="a-search" type="search" key=${query.search ?? ''} defaultValue=${query.search ?? ''} onChange=${text('search')} /></div>
      <div><label for="a-type">Type</label><select id="a-type" value=${query.type ?? ''} onChange=${text('type')}><option value="">Any type</option>${ASSET_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select></div>
      <div><label for="a-status">Status</label><select id="a-status" value=${query.status ?? ''} onChange=${text('status')}><option value="">Any status</option>${ASSET_STATUSES.map((s) => html`<option value=${s}>${s.replace(/_/g, ' ')}</option>`)}</select></div>
      <div><label for="a-tag">Tag</label><input id="a-tag" key=${query.tag ?? ''} defaultValue=${query.tag ?? ''} onChange=${text('tag')} /></div>
      <div><label for="a-sort">Sort by</label>
        <select id="a-sort" value=${`${query.sort_by ?? 'created_at'}:${query.sort_order ?? 'desc'}`} onChange=${(/** @type {any} */ e) => { const [by, order] = e.currentTarget.value.split(':'); set({ sort_by: by === 'created_at' ? null : by, sort_order: order === 'desc' ? null : order }); }}>
          <option value="created_at:desc">Newest first</option><option value="created_at:asc">Oldest first</option>
          <option value="risk_score:desc">Riskiest first</option><option value="risk_score:asc">Least risky first</option>
          <option value="name:asc">Name, A to Z</option><option value="name:desc">Name, Z to A</option>
          <option value="type:asc">Type, A to Z</option><option value="type:desc">Type, Z to A</option>
        </select>
      </div>
    </form>
    ${list.error ? html`<${ErrorBox} error=${list.error} action="load the assets" onRetry=${list.reload} />` : null}
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0"><table data-testid="assets">
        <caption class="visually-hidden">Assets, ${list.data.meta.total} matching</caption>
        <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Risk</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Tags</th><th scope="col" class="hide-narrow">Last scan</th></tr></thead>
        <tbody>${list.data.data.map((a) => html`
          <tr key=${a.id}>
            <td><a href=${href(`/assets/${a.id}`)}>${a.name}</a></td><td>${a.type}</td><td>${a.risk_score}</td>
            <td><${StatusBadge} status=${a.status} />${a.verified ? '' : html` <small>unverified</small>`}</td>
            <td class="hide-narrow">${a.tags.join(', ')}</td><td class="hide-narrow"><${Time} value=${a.last_scan} empty="never" /></td>
          </tr>`)}
        </tbody>
      </table></div>
      ${!list.data.data.length && html`<p>No asset matches.</p>`}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Asset pages" />
    `}
  `;
}
