// @ts-check
import { useState } from 'preact/hooks';
import { api, send } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { Loading, NeedsScope, Pager, Time } from './ui.js';

const CHANGE_WORDS = /** @type {Record<string, string>} */ ({ added: 'added', removed: 'removed', upgraded: 'upgraded', downgraded: 'downgraded', changed: 'version changed' });

/**
 * The asset's software inventory: upload its SBOM (CycloneDX or SPDX JSON, through
 * `POST /api/assets/{id}/sbom`), the components of the current upload with a name filter,
 * and the latest changes between uploads.
 * @param {{ assetId: string }} props
 */
export function AssetInventory({ assetId }) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [file, setFile] = useState(/** @type {File | null} */ (null));
  const [upload, setUpload] = useState(/** @type {{ busy: boolean, error: unknown, result: any }} */ ({ busy: false, error: null, result: null }));
  const components = useApi((signal) => api.get(`/api/assets/${assetId}/components`, { page, per_page: 20, search }, signal), [assetId, page, search, upload.result]);
  const changes = useApi((signal) => api.get(`/api/assets/${assetId}/component-changes`, { per_page: 10 }, signal), [assetId, upload.result]);

  const send_ = async () => {
    if (!file) return;
    setUpload({ busy: true, error: null, result: null });
    try {
      const response = await send('POST', `/api/assets/${assetId}/sbom`, { rawBody: file, contentType: 'application/json' });
      setUpload({ busy: false, error: null, result: (await response.json()).data });
      setPage(1);
    } catch (error) {
      setUpload({ busy: false, error, result: null });
    }
  };
  const r = upload.result;
  return html`
    ${can('assets:write')
      ? html`<form class="toolbar" aria-label="Upload an SBOM" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void send_(); }}>
          <label for="sbom-file">SBOM file (CycloneDX 1.4–1.6 or SPDX 2.3, JSON)</label>
          <input id="sbom-file" type="file" accept=".json,application/json" onChange=${(/** @type {any} */ e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          <button type="submit" disabled=${!file || upload.busy}>${upload.busy ? 'Uploading…' : 'Upload SBOM'}</button>
        </form>
        <p class="hint">A new upload replaces the inventory; what changed is kept below.</p>`
      : html`<p>Uploading an SBOM <${NeedsScope} scope="assets:write" />.</p>`}
    ${upload.error ? html`<${ErrorBox} error=${upload.error} action="record the SBOM (nothing was recorded)" />` : null}
    ${r && html`<p class="notice" role="status" data-testid="sbom-report">Recorded ${r.sbom.component_count} components from a ${r.sbom.format === 'spdx' ? 'SPDX' : 'CycloneDX'} ${r.sbom.spec_version} document: ${r.changes.added} added, ${r.changes.removed} removed, ${r.changes.upgraded} upgraded, ${r.changes.downgraded} downgraded.</p>`}
    <label for="component-search">Filter components by name</label>
    <input id="component-search" type="search" value=${search} onInput=${(/** @type {any} */ e) => { setSearch(e.currentTarget.value); setPage(1); }} />
    ${components.error ? html`<${ErrorBox} error=${components.error} action="load the inventory" onRetry=${components.reload} />` : null}
    ${components.loading && !components.data ? html`<${Loading} />` : null}
    ${components.data && (components.data.meta.total === 0 && !search
      ? html`<p>No inventory yet: upload this asset's SBOM.</p>`
      : html`
        <div class="table-wrap" tabindex="0"><table>
          <caption class="visually-hidden">Components</caption>
          <thead><tr><th scope="col">Component</th><th scope="col">Version</th><th scope="col">Package URL</th><th scope="col">Licences</th><th scope="col">Direct</th><th scope="col">Findings</th></tr></thead>
          <tbody>${components.data.data.map((c) => html`<tr key=${c.id}>
            <td><a href=${href(`/components/${c.id}`)}>${c.group ? `${c.group}/` : ''}${c.name}</a></td><td>${c.version ?? '—'}</td>
            <td>${c.package ? html`<a href=${href('/components', { q: c.package })} title="Where else do we run it">${c.purl}</a>` : '—'}</td>
            <td>${c.licenses.join(', ') || '—'}</td><td>${c.direct ? 'yes' : 'no'}</td><td>${c.finding_count}</td></tr>`)}</tbody>
        </table></div>
        <${Pager} meta=${components.data.meta} onPage=${setPage} label="Component pages" />`)}
    ${changes.data && changes.data.data.length > 0 && html`
      <h3>Latest changes</h3>
      <ul class="change-list">${changes.data.data.map((c) => html`<li key=${c.id}><${Time} value=${c.created_at} /> · ${c.name} ${CHANGE_WORDS[c.change] ?? c.change}${c.old_version && c.new_version ? ` ${c.old_version} → ${c.new_version}` : c.new_version ? ` ${c.new_version}` : c.old_version ? ` ${c.old_version}` : ''}</li>`)}</ul>`}
  `;
}
