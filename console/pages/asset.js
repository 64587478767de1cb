// @ts-check
import { useState } from 'preact/hooks';
import { useLiveReload } from '../app/live.js';
import { AssetInventory } from '../components/asset-inventory.js';
import { AssetVerification } from '../components/asset-verification.js';
import { ErrorBox } from '../components/error-box.js';
import { ScanNow } from '../components/scan-form.js';
import { Loading, NeedsScope, SeverityBadge, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, navigate } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';
import { parseTags } from './assets.js';
import { SEVERITIES } from '../lib/vocabulary.js';

/**
 * Tags, metadata (as JSON) and in/out of service, saved with PUT /api/assets/{id}. It is
 * keyed by the asset's updated_at, so a save remounts it with the saved values: the
 * "saved" notice therefore lives in the page (`notice`), not in this form's state.
 */
function EditAsset({ asset, notice, onSaved }) {
  const [tags, setTags] = useState(asset.tags.join(', '));
  const [metadata, setMetadata] = useState(JSON.stringify(asset.metadata, null, 2));
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown, done: string | null }} */ ({ busy: false, error: null, done: null }));
  /** @param {Record<string, unknown>} body @param {string} done */
  const put = async (body, done) => {
    setState({ busy: true, error: null, done: null });
    try {
      await api.put(`/api/assets/${asset.id}`, body);
      setState({ busy: false, error: null, done });
      onSaved(done);
    } catch (error) {
      setState({ busy: false, error, done: null });
    }
  };
  const save = () => {
    let parsed;
    try {
      parsed = JSON.parse(metadata || '{}');
    } catch (err) {
      return setState({ busy: false, error: new Error(`The metadata is not valid JSON: ${/** @type {Error} */ (err).message}`), done: null });
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return setState({ busy: false, error: new Error('The metadata must be a JSON object, e.g. {"owner": "web team"}.'), done: null });
    void put({ tags: parseTags(tags), metadata: parsed }, 'Tags and metadata saved.');
  };
  return html`
    <form aria-label="Edit tags and metadata" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); save(); }}>
      <label for="edit-tags">Tags (comma-separated)</label>
      <input id="edit-tags" class="wide" value=${tags} onInput=${(/** @type {any} */ e) => setTags(e.currentTarget.value)} />
      <label for="edit-metadata">Metadata (a JSON object)</label>
      <textarea id="edit-metadata" rows="6" class="code-input" spellcheck=${false} value=${metadata} onInput=${(/** @type {any} */ e) => setMetadata(e.currentTarget.value)}></textarea>
      <div class="toolbar">
        <button type="submit" disabled=${state.busy}>Save tags and metadata</button>
        ${asset.status === 'inactive'
          ? html`<button type="button" class="secondary" disabled=${state.busy || !asset.verified} onClick=${() => void put({ status: 'active' }, 'Back in service.')}>Put back in service</button>${!asset.verified ? html`<span class="hint">needs verified ownership</span>` : null}`
          : html`<button type="button" class="secondary" disabled=${state.busy} onClick=${() => void put({ status: 'inactive' }, 'Taken out of service.')}>Take out of service</button>`}
      </div>
    </form>
    ${(state.done ?? (state.busy || state.error ? null : notice)) && html`<p class="notice" role="status">${state.done ?? notice}</p>`}
    ${state.error ? html`<${ErrorBox} error=${state.error} action="save the asset" />` : null}
  `;
}

/** One asset: its findings summary, tags and metadata, ownership verification, scan now. */
export default function Asset({ params }) {
  const asset = useApi((signal) => api.get(`/api/assets/${encodeURIComponent(params.id)}`, {}, signal).then((r) => r.data), [params.id]);
  useLiveReload(['asset.verified', 'finding.new', 'finding.status_changed', 'scan.completed'], asset.reload, 1500);
  const [deleteError, setDeleteError] = useState(/** @type {unknown} */ (null));
  const [saved, setSaved] = useState(/** @type {string | null} */ (null));
  if (asset.error) return html`<h1 tabindex="-1">Asset</h1><${ErrorBox} error=${asset.error} action="load this asset" onRetry=${asset.reload} />`;
  if (!asset.data) return html`<h1 tabindex="-1">Asset</h1><${Loading} />`;
  const a = asset.data;
  const writable = can('assets:write');
  const remove = async () => {
    if (!window.confirm(`Delete ${a.name}? Its findings and scans are deleted with it.`)) return;
    try {
      await api.del(`/api/assets/${a.id}`);
      navigate('/assets');
    } catch (error) {
      setDeleteError(error);
    }
  };
  return html`
    <p><a href=${href('/assets')}>← All assets</a></p>
    <h1 tabindex="-1">${a.name}</h1>
    <p class="toolbar"><span>${a.type}</span> · <${StatusBadge} status=${a.status} /> · ${a.verified ? 'ownership verified' : 'ownership not verified'} · risk ${a.risk_score}/100</p>
    <section class="panel" aria-labelledby="summary-h">
      <h2 id="summary-h">Unresolved findings</h2>
      <ul class="tiles">
        ${SEVERITIES.map((s) => html`<li key=${s} class=${`tile sev-${s}`}><a href=${href('/findings', { asset_id: a.id, severity: s })}><span class="tile-label"><${SeverityBadge} severity=${s} /></span><span class="tile-value">${a.finding_summary[s]}</span></a></li>`)}
      </ul>
      <p><a href=${href('/findings', { asset_id: a.id })}>All findings of this asset</a>${can('scan:read') ? html` · <a href=${href('/scans', { asset_id: a.id })}>Its scans</a>` : null}</p>
      <dl class="facts"><dt>Last scan</dt><dd><${Time} value=${a.last_scan} empty="never" /></dd><dt>Added</dt><dd><${Time} value=${a.created_at} /></dd><dt>Id</dt><dd><code>${a.id}</code></dd></dl>
    </section>
    <section class="panel" aria-labelledby="inventory-h">
      <h2 id="inventory-h">Software inventory</h2>
      <${AssetInventory} assetId=${a.id} />
    </section>
    <section class="panel" aria-labelledby="scan-h">
      <h2 id="scan-h">Scan now</h2>
      ${can('scan:write') ? html`<${ScanNow} asset=${a} />` : html`<p>Starting a scan <${NeedsScope} scope="scan:write" />.</p>`}
    </section>
    <section class="panel" aria-labelledby="edit-h">
      <h2 id="edit-h">Tags and metadata</h2>
      ${writable ? html`<${EditAsset} key=${a.updated_at} asset=${a} notice=${saved} onSaved=${(/** @type {string} */ done) => { setSaved(done); asset.reload({ quiet: true }); }} />` : html`<p>Tags: ${a.tags.join(', ') || 'none'}</p><pre class="prose">${JSON.stringify(a.metadata, null, 2)}</pre><p>Editing <${NeedsScope} scope="assets:write" />.</p>`}
    </section>
    <section class="panel" aria-labelledby="verify-h">
      <h2 id="verify-h">Ownership verification</h2>
      ${writable ? html`<${AssetVerification} asset=${a} onVerified=${() => asset.reload({ quiet: true })} />` : html`<p>Verifying <${NeedsScope} scope="assets:write" />.</p>`}
    </section>
    ${writable && html`
      <section class="panel" aria-labelledby="danger-h">
        <h2 id="danger-h">Delete</h2>
        <button type="button" class="danger" onClick=${remove}>Delete this asset</button>
        ${deleteError ? html`<${ErrorBox} error=${deleteError} action="delete the asset" />` : null}
      </section>`}
  `;
}
