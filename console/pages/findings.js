// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { useEvents } from '../app/live.js';
import { BulkTriage } from '../components/bulk-triage.js';
import { ErrorBox } from '../components/error-box.js';
import { ExportPanel } from '../components/export-panel.js';
import { KevBadge, percent } from '../components/finding-enrichment.js';
import { FINDING_FILTER_KEYS, FindingFilters } from '../components/finding-filters.js';
import { TriageDialog } from '../components/triage-dialog.js';
import { Loading, NeedsScope, Pager, SeverityBadge, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { STATUS_KEYS } from '../lib/triage.js';
import { useApi } from '../lib/use-api.js';

const LIST_KEYS = [...FINDING_FILTER_KEYS, 'sort_by', 'sort_order', 'page', 'per_page'];

/** @param {EventTarget | null} target */
function typingIn(target) {
  const el = /** @type {HTMLElement | null} */ (target);
  return !!el && (el.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName) || !!el.closest('dialog[open]'));
}

/**
 * The findings list: filters in the URL, keyboard triage (j/k move, a key per status,
 * x selects), bulk triage of the selection, export of what matches.
 * @param {import('../app/routes.js').PageProps} props
 */
export default function Findings({ query }) {
  const listQuery = Object.fromEntries(LIST_KEYS.filter((k) => query[k]).map((k) => [k, query[k]]));
  const key = JSON.stringify(listQuery);
  const list = useApi((signal) => api.get('/api/findings', listQuery, signal), [key]);
  const [cursor, setCursorState] = useState(-1);
  // The cursor as of the last key or focus, read by the key handler: a key can land before
  // the re-render that would hand the handler the new state.
  const cursorRef = useRef(-1);
  /** @param {number} index */
  const setCursor = (index) => {
    cursorRef.current = index;
    setCursorState(index);
  };
  const [selected, setSelected] = useState(/** @type {Set<string>} */ (new Set()));
  const [changed, setChanged] = useState(/** @type {Record<string, string>} */ ({}));
  const [triage, setTriage] = useState(/** @type {{ finding: any, status: string } | null} */ (null));
  const [updates, setUpdates] = useState(0);
  const [announce, setAnnounce] = useState('');
  const table = useRef(/** @type {HTMLTableElement | null} */ (null));
  const writable = can('findings:write');
  /** @type {any[]} */
  const rows = list.data?.data ?? [];

  useEffect(() => {
    setCursor(-1);
    setSelected(new Set());
    setChanged({});
    setUpdates(0);
  }, [key]);

  // New findings and other people's triage do not reshuffle the rows under the keyboard: they are offered as a reload.
  useEvents(['finding.new', 'finding.status_changed'], (event) => {
    if (event.kind === 'stream.resumed' || !(event.data?.finding_id in changed)) setUpdates((n) => n + 1);
  });

  /** @param {number} index */
  const focusRow = (index) => /** @type {HTMLElement | null | undefined} */ (table.current?.querySelector(`[data-row="${index}"] a`))?.focus();

  /** @param {number} index */
  const moveTo = (index) => {
    const next = Math.max(0, Math.min(rows.length - 1, index));
    setCursor(next);
    focusRow(next);
  };
  /** @param {number} delta */
  const moveBy = (delta) => moveTo(cursorRef.current + delta);

  // The handler of this render, set while rendering: a key pressed as soon as the page shows a
  // change (the dialog closed, the list reloaded) meets the state it shows. A listener swapped
  // in an effect runs after paint, so such a key once met the previous render's state.
  const onKey = useRef(/** @type {(e: KeyboardEvent) => void} */ (() => undefined));
  onKey.current = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target) || triage || !rows.length) return;
    const row = rows[cursorRef.current];
    if (e.key === 'j') moveBy(1);
    else if (e.key === 'k') moveBy(-1);
    else if (e.key === 'x' && row) toggle(row.id);
    else if (row && e.key in STATUS_KEYS) {
      if (!writable) return setAnnounce('Changing a status needs the findings:write scope.');
      setTriage({ finding: { ...row, status: changed[row.id] ?? row.status }, status: STATUS_KEYS[/** @type {keyof typeof STATUS_KEYS} */ (e.key)] });
    } else return;
    e.preventDefault();
  };
  useEffect(() => {
    /** @param {KeyboardEvent} e */
    const listener = (e) => onKey.current(e);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  /** @param {string} id */
  const toggle = (id) => setSelected((s) => {
    const next = new Set(s);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });

  /** @param {{ id: string, status: string } | null} result */
  const triaged = (result) => {
    setTriage(null);
    if (!result) return focusRow(cursorRef.current);
    setChanged((c) => ({ ...c, [result.id]: result.status }));
    setAnnounce(`Marked as ${result.status.replace(/_/g, ' ')}.`);
    // Straight on to the next finding: triage is a run through the list.
    moveTo(cursorRef.current + 1);
  };

  const allOnPage = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const exportFilters = Object.fromEntries(Object.entries(listQuery).filter(([k]) => k !== 'page' && k !== 'per_page').map(([k, v]) => [k, k.startsWith('cvss') || k === 'epss_min' ? Number(v) : k === 'kev' ? v === 'true' : v]));
  const pageFilters = { ...exportFilters, page: Number(query.page ?? 1), per_page: Number(query.per_page ?? 20) };

  return html`
    <h1 tabindex="-1">Findings</h1>
    <${FindingFilters} query=${query} />
    <${ExportPanel} filters=${exportFilters} pageFilters=${pageFilters} total=${list.data?.meta.total ?? null} />
    <p class="kbd-help" id="kbd-help">
      Keyboard: <kbd>j</kbd> / <kbd>k</kbd> next / previous · <kbd>x</kbd> select ·
      ${Object.entries(STATUS_KEYS).map(([k, s]) => html`<kbd>${k}</kbd> ${s.replace(/_/g, ' ')} · `)}
      <kbd>Enter</kbd> opens the finding
      ${!writable ? html` · <${NeedsScope} scope="findings:write" /> to change statuses` : null}
    </p>
    <p class="visually-hidden" role="status" aria-live="polite">${announce}</p>
    ${updates > 0 && html`<p class="notice">${updates} change${updates === 1 ? '' : 's'} since this list loaded. <button type="button" class="secondary" onClick=${() => { setUpdates(0); list.reload({ quiet: true }); }}>Show the latest</button></p>`}
    ${writable && html`<${BulkTriage} selected=${[...selected]} titles=${Object.fromEntries(rows.map((r) => [r.id, r.title]))} onClear=${() => setSelected(new Set())} onFinished=${() => { setSelected(new Set()); list.reload({ quiet: true }); }} />`}
    ${list.error ? html`<${ErrorBox} error=${list.error} action="load the findings" onRetry=${list.reload} />` : null}
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <div class="table-wrap" tabindex="0">
        <table ref=${table} class="findings-table" aria-describedby="kbd-help" data-testid="findings">
          <caption class="visually-hidden">Findings, ${list.data.meta.total} matching</caption>
          <thead><tr>
            ${writable && html`<th scope="col"><input type="checkbox" aria-label="Select every finding on this page" checked=${allOnPage} onChange=${(/** @type {any} */ e) => setSelected(e.currentTarget.checked ? new Set(rows.map((r) => r.id)) : new Set())} /></th>`}
            <th scope="col">Severity</th><th scope="col">CVSS</th><th scope="col">Title</th><th scope="col">EPSS</th><th scope="col" class="hide-narrow">Asset</th><th scope="col">Status</th><th scope="col" class="hide-narrow">Discovered</th>
          </tr></thead>
          <tbody>
            ${rows.map((f, i) => {
              const status = changed[f.id] ?? f.status;
              const classes = [i === cursor ? 'cursor-row' : '', selected.has(f.id) ? 'selected-row' : ''].join(' ').trim();
              return html`
                <tr key=${f.id} data-row=${i} data-id=${f.id} class=${classes || undefined} aria-current=${i === cursor ? 'true' : undefined}>
                  ${writable && html`<td><input type="checkbox" aria-label=${`Select ${f.title}`} checked=${selected.has(f.id)} onChange=${() => toggle(f.id)} /></td>`}
                  <td><${SeverityBadge} severity=${f.severity} /></td>
                  <td>${f.cvss.toFixed(1)}</td>
                  <td><a href=${href(`/findings/${f.id}`)} onFocus=${() => setCursor(i)}>${f.title}</a>${f.kev ? html` <${KevBadge} kev=${f.kev} short />` : null}</td>
                  <td data-epss>${f.epss ? percent(f.epss.score) : '—'}</td>
                  <td class="hide-narrow">${f.asset.name}</td>
                  <td><${StatusBadge} status=${status} />${changed[f.id] && changed[f.id] !== f.status ? html` <small>(was ${f.status.replace(/_/g, ' ')})</small>` : null}</td>
                  <td class="hide-narrow"><${Time} value=${f.discovered_at} /></td>
                </tr>`;
            })}
          </tbody>
        </table>
      </div>
      ${!rows.length && html`<p>No finding matches these filters.</p>`}
      <div class="toolbar">
        <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Finding pages" />
        <label for="per-page">Per page</label>
        <select id="per-page" value=${query.per_page ?? '20'} onChange=${(/** @type {any} */ e) => updateQuery({ per_page: e.currentTarget.value === '20' ? null : e.currentTarget.value, page: null })}>
          ${['20', '50', '100'].map((n) => html`<option value=${n}>${n}</option>`)}
        </select>
      </div>
    `}
    <${TriageDialog} finding=${triage?.finding ?? null} status=${triage?.status ?? 'open'} onDone=${triaged} />
  `;
}
