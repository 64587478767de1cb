// @ts-check
import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { Loading, Pager } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';

/**
 * "Where do we run X": a package URL (`pkg:npm/lodash`, with `@version` for one version) or
 * a component name, answered from every asset's current inventory (GET /api/components).
 * The question is in the URL (`?q=`), so an answer is a link to share.
 * @param {import('../app/routes.js').PageProps} props
 */
export default function Components({ query }) {
  const q = query.q ?? '';
  const page = Number(query.page ?? 1);
  const [text, setText] = useState(q);
  const result = useApi((signal) => (q ? api.get('/api/components', { ...(q.startsWith('pkg:') ? { purl: q } : { name: q }), page, per_page: 50 }, signal) : Promise.resolve(null)), [q, page]);
  return html`
    <h1 tabindex="-1">Where do we run…</h1>
    <form class="toolbar" role="search" aria-label="Find a package" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); updateQuery({ q: text.trim() || null, page: null }); }}>
      <label for="package-query">Package URL or component name</label>
      <input id="package-query" class="wide" placeholder="pkg:npm/lodash or log4j-core" value=${text} onInput=${(/** @type {any} */ e) => setText(e.currentTarget.value)} />
      <button type="submit">Find</button>
    </form>
    <p class="hint">A package URL without a version finds every version; <code>pkg:npm/lodash@4.17.20</code> finds that one. A name matches exactly, in any case.</p>
    ${result.error ? html`<${ErrorBox} error=${result.error} action="look the package up" onRetry=${result.reload} />` : null}
    ${q && result.loading && !result.data ? html`<${Loading} />` : null}
    ${result.data && (result.data.meta.total === 0
      ? html`<p role="status">No asset's inventory holds ${q}.</p>`
      : html`
        <p role="status" data-testid="where-summary">${result.data.meta.total} ${result.data.meta.total === 1 ? 'component' : 'components'} on ${new Set(result.data.data.map((r) => r.asset_id)).size} ${new Set(result.data.data.map((r) => r.asset_id)).size === 1 ? 'asset' : 'assets'}${result.data.meta.total_pages > 1 ? ' (this page)' : ''}.</p>
        <div class="table-wrap" tabindex="0"><table>
          <caption class="visually-hidden">Assets running ${q}</caption>
          <thead><tr><th scope="col">Asset</th><th scope="col">Component</th><th scope="col">Version</th><th scope="col">Licences</th><th scope="col">Findings</th></tr></thead>
          <tbody>${result.data.data.map((r) => html`<tr key=${r.id}>
            <td><a href=${href(`/assets/${r.asset_id}`)}>${r.asset_name}</a></td>
            <td><a href=${href(`/components/${r.id}`)}>${r.group ? `${r.group}/` : ''}${r.name}</a></td>
            <td>${r.version ?? '—'}</td><td>${r.licenses.join(', ') || '—'}</td><td>${r.finding_count}</td></tr>`)}</tbody>
        </table></div>
        <${Pager} meta=${result.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p })} label="Result pages" />`)}
  `;
}
