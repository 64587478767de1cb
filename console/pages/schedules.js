// @ts-check
import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { ScanOptionFields, scanOptionsOf, useScanCatalog } from '../components/scan-form.js';
import { Loading, NeedsScope, Pager, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';

/** @param {{ assets: Array<{ id: string, name: string, type: string }>, onCreated: () => void }} props */
function NewSchedule({ assets, onCreated }) {
  const [form, setForm] = useState(/** @type {Record<string, any>} */ ({ asset_id: assets[0]?.id ?? '', cron: '0 3 * * *', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', scan_type: 'full', priority: 'normal', name: '', enabled: true }));
  const asset = assets.find((a) => a.id === form.asset_id);
  const catalog = useScanCatalog(asset?.type ?? 'domain');
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown }} */ ({ busy: false, error: null }));
  const text = (/** @type {string} */ k) => (/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, [k]: v })); };
  const save = async () => {
    setState({ busy: true, error: null });
    try {
      await api.post('/api/scan-schedules', {
        asset_id: form.asset_id, cron: form.cron.trim(), timezone: form.timezone.trim(), scan_type: form.scan_type, priority: form.priority,
        name: form.name.trim() || null, enabled: form.enabled, options: scanOptionsOf(form),
      });
      setState({ busy: false, error: null });
      onCreated();
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  if (!assets.length) return html`<p>Add an <a href=${href('/assets')}>asset</a> first.</p>`;
  return html`
    <form aria-label="New schedule" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void save(); }}>
      <div class="filters">
        <div><label for="sch-asset">Asset</label><select id="sch-asset" value=${form.asset_id} onChange=${text('asset_id')}>${assets.map((a) => html`<option value=${a.id}>${a.name}</option>`)}</select></div>
        <div><label for="sch-name">Name</label><input id="sch-name" value=${form.name} placeholder="optional" onInput=${text('name')} /></div>
        <div><label for="sch-cron">Cron (minute hour day month weekday)</label><input id="sch-cron" required value=${form.cron} onInput=${text('cron')} /></div>
        <div><label for="sch-tz">Time zone</label><input id="sch-tz" required value=${form.timezone} onInput=${text('timezone')} /></div>
        <div><label for="sch-type">Scan type</label><select id="sch-type" value=${form.scan_type} onChange=${text('scan_type')}>${(catalog.data?.types ?? ['full', 'quick']).map((t) => html`<option value=${t}>${t}</option>`)}</select></div>
        <div><label for="sch-priority">Priority</label><select id="sch-priority" value=${form.priority} onChange=${text('priority')}><option value="low">low</option><option value="normal">normal</option><option value="high">high</option></select></div>
      </div>
      <${ScanOptionFields} idPrefix="sch" form=${form} setForm=${setForm} categories=${catalog.data?.categories ?? []} />
      <label class="inline"><input type="checkbox" checked=${form.enabled} onChange=${(/** @type {any} */ e) => { const v = e.currentTarget.checked; setForm((f) => ({ ...f, enabled: v })); }} /> Enabled</label>
      <div class="toolbar"><button type="submit" disabled=${state.busy}>Create schedule</button></div>
    </form>
    ${state.error ? html`<${ErrorBox} error=${state.error} action="create the schedule" />` : null}
  `;
}

/** Recurring scans: list (by asset), create, pause/resume, delete. */
export default function Schedules({ query }) {
  const listQuery = Object.fromEntries(['asset_id', 'page'].filter((k) => query[k]).map((k) => [k, query[k]]));
  const list = useApi((signal) => api.get('/api/scan-schedules', listQuery, signal), [JSON.stringify(listQuery)]);
  const assets = useApi((signal) => (can('assets:read') ? api.get('/api/assets', { sort_by: 'name', sort_order: 'asc', per_page: 100 }, signal) : Promise.resolve({ data: [] })), []);
  const [rowError, setRowError] = useState(/** @type {unknown} */ (null));
  const writable = can('scan:write');
  const names = Object.fromEntries((assets.data?.data ?? []).map((a) => [a.id, a.name]));
  /** @param {() => Promise<unknown>} run */
  const act = async (run) => {
    setRowError(null);
    try {
      await run();
      list.reload({ quiet: true });
    } catch (error) {
      setRowError(error);
    }
  };
  return html`
    <p><a href=${href('/scans')}>← Scans</a></p>
    <h1 tabindex="-1">Scan schedules</h1>
    <details class="panel"><summary>New schedule ${!writable ? html`<${NeedsScope} scope="scan:write" />` : null}</summary>
      ${writable && assets.data ? html`<${NewSchedule} assets=${assets.data.data} onCreated=${() => list.reload({ quiet: true })} />` : null}
    </details>
    <form class="filters" aria-label="Filter schedules" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <div><label for="sch-filter-asset">Asset</label>
        <select id="sch-filter-asset" value=${query.asset_id ?? ''} onChange=${(/** @type {any} */ e) => updateQuery({ asset_id: e.currentTarget.value || null, page: null })}>
          <option value="">Any asset</option>${(assets.data?.data ?? []).map((a) => html`<option value=${a.id}>${a.name}</option>`)}
        </select></div>
    </form>
    ${rowError ? html`<${ErrorBox} error=${rowError} action="change the schedule" />` : null}
    ${list.error ? html`<${ErrorBox} error=${list.error} action="load the schedules" onRetry=${list.reload} />` : null}
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0"><table data-testid="schedules">
        <thead><tr><th scope="col">Name</th><th scope="col">Asset</th><th scope="col">When</th><th scope="col">Type</th><th scope="col">Next run</th><th scope="col" class="hide-narrow">Last run</th><th scope="col">Actions</th></tr></thead>
        <tbody>${list.data.data.map((s) => html`
          <tr key=${s.id}>
            <td>${s.name ?? html`<code>${s.id}</code>`}</td>
            <td><a href=${href(`/assets/${s.asset_id}`)}>${names[s.asset_id] ?? s.asset_id}</a></td>
            <td><code>${s.cron}</code> <small>${s.timezone}</small></td><td>${s.scan_type}</td>
            <td>${s.enabled ? html`<${Time} value=${s.next_run_at} />` : 'paused'}</td>
            <td class="hide-narrow"><${Time} value=${s.last_run_at} empty="never" />${s.last_outcome ? html` <small>${s.last_outcome}</small>` : null}${s.last_scan_id ? html` <a href=${href(`/scans/${s.last_scan_id}`)}>scan</a>` : null}</td>
            <td class="toolbar">${writable ? html`
              <button type="button" class="secondary" aria-label=${`${s.enabled ? 'Pause' : 'Resume'} ${s.name ?? s.id}`} onClick=${() => void act(() => api.put(`/api/scan-schedules/${s.id}`, { enabled: !s.enabled }))}>${s.enabled ? 'Pause' : 'Resume'}</button>
              <button type="button" class="danger" aria-label=${`Delete ${s.name ?? s.id}`} onClick=${() => window.confirm('Delete this schedule? Scans it queued stay.') && void act(() => api.del(`/api/scan-schedules/${s.id}`))}>Delete</button>` : html`<${NeedsScope} scope="scan:write" />`}</td>
          </tr>`)}
        </tbody>
      </table></div>
      ${!list.data.data.length && html`<p>No schedules.</p>`}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Schedule pages" />
    `}
  `;
}
