// @ts-check
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';
import { FINDING_STATUSES } from '../lib/triage.js';
import { SEVERITIES } from '../lib/vocabulary.js';

/** The query keys of the findings list, all kept in the URL. */
export const FINDING_FILTER_KEYS = ['severity', 'status', 'cvss_min', 'cvss_max', 'asset_id', 'scan_id', 'search', 'kev', 'epss_min'];

/**
 * Every filter and sort of `GET /api/findings`. Each change rewrites the URL (and goes
 * back to page 1), so the view can be bookmarked or shared as it is.
 * @param {{ query: Record<string, string> }} props
 */
export function FindingFilters({ query }) {
  // Text fields are uncontrolled (defaultValue, re-created when the URL's value changes): a
  // controlled value would be written back into the field by any re-render, such as a live
  // reload, wiping what the user is typing before it is committed.
  const assets = useApi((signal) => (can('assets:read') ? api.get('/api/assets', { sort_by: 'name', sort_order: 'asc', per_page: 100 }, signal) : Promise.resolve(null)), []);
  const severities = new Set((query.severity ?? '').split(',').filter(Boolean));
  /** @param {Record<string, unknown>} patch */
  const set = (patch) => updateQuery({ ...patch, page: null });
  /** @param {string} severity @param {boolean} on */
  const toggleSeverity = (severity, on) => {
    const next = new Set(severities);
    if (on) next.add(severity);
    else next.delete(severity);
    set({ severity: SEVERITIES.filter((s) => next.has(s)).join(',') || null });
  };
  const assetList = /** @type {Array<{ id: string, name: string }>} */ (assets.data?.data ?? []);
  const knownAsset = !query.asset_id || assetList.some((a) => a.id === query.asset_id);
  const text = (/** @type {string} */ key) => (/** @type {any} */ e) => set({ [key]: e.currentTarget.value.trim() || null });
  const active = FINDING_FILTER_KEYS.some((k) => query[k]);

  return html`
    <form class="filters" role="search" aria-label="Filter findings" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <fieldset class="severity-filter">
        <legend>Severity</legend>
        ${SEVERITIES.map((s) => html`
          <label class="inline" key=${s}><input type="checkbox" name="severity" value=${s} checked=${severities.has(s)} onChange=${(/** @type {any} */ e) => toggleSeverity(s, e.currentTarget.checked)} /> ${s}</label>`)}
      </fieldset>
      <div>
        <label for="f-status">Status</label>
        <select id="f-status" value=${query.status ?? ''} onChange=${text('status')}>
          <option value="">Any status</option>
          ${FINDING_STATUSES.map((s) => html`<option value=${s}>${s.replace(/_/g, ' ')}</option>`)}
        </select>
      </div>
      <div>
        <label for="f-cvss-min">CVSS from</label>
        <input id="f-cvss-min" type="number" min="0" max="10" step="0.1" inputmode="decimal" class="narrow" key=${query.cvss_min ?? ''} defaultValue=${query.cvss_min ?? ''} onChange=${text('cvss_min')} />
      </div>
      <div>
        <label for="f-cvss-max">CVSS to</label>
        <input id="f-cvss-max" type="number" min="0" max="10" step="0.1" inputmode="decimal" class="narrow" key=${query.cvss_max ?? ''} defaultValue=${query.cvss_max ?? ''} onChange=${text('cvss_max')} />
      </div>
      <div>
        <label for="f-kev">KEV</label>
        <select id="f-kev" value=${query.kev ?? ''} onChange=${text('kev')}>
          <option value="">KEV or not</option>
          <option value="true">In the KEV catalog</option>
          <option value="false">Not in KEV</option>
        </select>
      </div>
      <div>
        <label for="f-epss-min">EPSS from (%)</label>
        <input id="f-epss-min" type="number" min="0" max="100" step="1" inputmode="decimal" class="narrow" key=${query.epss_min ?? ''} defaultValue=${query.epss_min ? String(Math.round(Number(query.epss_min) * 1000) / 10) : ''} onChange=${(/** @type {any} */ e) => { const v = e.currentTarget.value.trim(); set({ epss_min: v === '' ? null : String(Number(v) / 100) }); }} />
      </div>
      <div>
        <label for="f-asset">Asset</label>
        ${can('assets:read')
          ? html`<select id="f-asset" value=${query.asset_id ?? ''} onChange=${text('asset_id')}>
              <option value="">Any asset</option>
              ${!knownAsset && html`<option value=${query.asset_id}>${query.asset_id}</option>`}
              ${assetList.map((a) => html`<option value=${a.id}>${a.name}</option>`)}
            </select>`
          : html`<input id="f-asset" placeholder="ast_…" key=${query.asset_id ?? ''} defaultValue=${query.asset_id ?? ''} onChange=${text('asset_id')} />`}
      </div>
      <div>
        <label for="f-scan">Scan id</label>
        <input id="f-scan" placeholder="scn_…" spellcheck=${false} key=${query.scan_id ?? ''} defaultValue=${query.scan_id ?? ''} onChange=${text('scan_id')} />
      </div>
      <div>
        <label for="f-search">Search title and description</label>
        <input id="f-search" type="search" aria-describedby="f-search-hint" key=${query.search ?? ''} defaultValue=${query.search ?? ''} onChange=${text('search')} />
        <span id="f-search-hint" class="hint">all words, 3 letters or more; <code>word*</code> for a prefix, <code>"a phrase"</code></span>
      </div>
      <div>
        <label for="f-sort">Sort by</label>
        <select id="f-sort" value=${`${query.sort_by ?? 'discovered_at'}:${query.sort_order ?? 'desc'}`} onChange=${(/** @type {any} */ e) => { const [by, order] = e.currentTarget.value.split(':'); set({ sort_by: by === 'discovered_at' ? null : by, sort_order: order === 'desc' ? null : order }); }}>
          <option value="discovered_at:desc">Newest first</option>
          <option value="discovered_at:asc">Oldest first</option>
          <option value="severity:desc">Severity, highest first</option>
          <option value="severity:asc">Severity, lowest first</option>
          <option value="cvss:desc">CVSS, highest first</option>
          <option value="cvss:asc">CVSS, lowest first</option>
          <option value="epss:desc">EPSS, highest first</option>
          <option value="epss:asc">EPSS, lowest first</option>
          <option value="title:asc">Title, A to Z</option>
          <option value="title:desc">Title, Z to A</option>
        </select>
      </div>
      ${active && html`<div><button type="button" class="secondary" onClick=${() => set(Object.fromEntries(FINDING_FILTER_KEYS.map((k) => [k, null])))}>Clear filters</button></div>`}
    </form>
  `;
}
