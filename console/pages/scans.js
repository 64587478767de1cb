// @ts-check
import { useState } from 'preact/hooks';
import { useEvents, useLiveReload } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { Loading, Pager, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';

export const SCAN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'];
const SCAN_TYPES = ['full', 'quick', 'custom', 'web_app', 'network', 'api', 'ssl', 'api_discovery', 'dns', 'port'];
const LIST_KEYS = ['status', 'asset_id', 'scan_type', 'from', 'to', 'page', 'per_page'];

/** `2026-11-24` from a date input → the start (or end) of that day, as ISO 8601 for from/to. */
const dayBound = (/** @type {string} */ day, /** @type {boolean} */ end) => (day ? new Date(`${day}T${end ? '23:59:59.999' : '00:00:00.000'}`).toISOString() : null);

/** The scan list, filtered in the URL, with running scans' progress moved live. */
export default function Scans({ query }) {
  const listQuery = Object.fromEntries(LIST_KEYS.filter((k) => query[k]).map((k) => [k, query[k]]));
  const list = useApi((signal) => api.get('/api/scans', listQuery, signal), [JSON.stringify(listQuery)]);
  const [live, setLive] = useState(/** @type {Record<string, { progress: number, phase: string }>} */ ({}));
  useEvents(['scan.progress'], (e) => e.data && setLive((l) => ({ ...l, [e.data.scan_id]: { progress: e.data.progress, phase: e.data.phase } })));
  useLiveReload(['scan.created', 'scan.completed', 'scan.failed'], list.reload, 750);
  const set = (/** @type {Record<string, unknown>} */ patch) => updateQuery({ ...patch, page: null });
  const text = (/** @type {string} */ key) => (/** @type {any} */ e) => set({ [key]: e.currentTarget.value.trim() || null });
  return html`
    <h1 tabindex="-1">Scans</h1>
    <p><a href=${href('/schedules')}>Scan schedules</a> · start a scan from an <a href=${href('/assets')}>asset's page</a>.</p>
    <form class="filters" role="search" aria-label="Filter scans" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <div><label for="s-status">Status</label><select id="s-status" value=${query.status ?? ''} onChange=${text('status')}><option value="">Any status</option>${SCAN_STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select></div>
      <div><label for="s-type">Scan type</label><select id="s-type" value=${query.scan_type ?? ''} onChange=${text('scan_type')}><option value="">Any type</option>${SCAN_TYPES.map((s) => html`<option value=${s}>${s}</option>`)}</select></div>
      <div><label for="s-asset">Asset id</label><input id="s-asset" placeholder="ast_…" key=${query.asset_id ?? ''} defaultValue=${query.asset_id ?? ''} onChange=${text('asset_id')} /></div>
      <div><label for="s-from">Created from</label><input id="s-from" type="date" key=${query.from ? query.from.slice(0, 10) : ''} defaultValue=${query.from ? query.from.slice(0, 10) : ''} onChange=${(/** @type {any} */ e) => set({ from: dayBound(e.currentTarget.value, false) })} /></div>
      <div><label for="s-to">Created until</label><input id="s-to" type="date" key=${query.to ? query.to.slice(0, 10) : ''} defaultValue=${query.to ? query.to.slice(0, 10) : ''} onChange=${(/** @type {any} */ e) => set({ to: dayBound(e.currentTarget.value, true) })} /></div>
    </form>
    ${list.error ? html`<${ErrorBox} error=${list.error} action="load the scans" onRetry=${list.reload} />` : null}
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0"><table data-testid="scans">
        <caption class="visually-hidden">Scans, ${list.data.meta.total} matching</caption>
        <thead><tr><th scope="col">Asset</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col" class="hide-narrow">Findings</th><th scope="col" class="hide-narrow">Created</th></tr></thead>
        <tbody>${list.data.data.map((s) => {
          const pct = Math.max(s.progress, live[s.scan_id]?.progress ?? 0);
          return html`
            <tr key=${s.scan_id}>
              <td><a href=${href(`/scans/${s.scan_id}`)}>${s.asset_name}</a></td><td>${s.scan_type}</td><td><${StatusBadge} status=${s.status} /></td>
              <td>${s.status === 'running' ? html`<progress max="100" value=${pct} aria-label=${`Progress of the scan of ${s.asset_name}`}></progress> ${pct}%` : `${s.progress}%`}</td>
              <td class="hide-narrow">${s.finding_count}</td><td class="hide-narrow"><${Time} value=${s.created_at} /></td>
            </tr>`;
        })}</tbody>
      </table></div>
      ${!list.data.data.length && html`<p>No scan matches.</p>`}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Scan pages" />
    `}
  `;
}
