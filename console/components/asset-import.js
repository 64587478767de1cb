// @ts-check
import { useState } from 'preact/hooks';
import { send } from '../lib/api.js';
import { html } from '../lib/html.js';
import { ErrorBox } from './error-box.js';

/**
 * Bulk import from a CSV (`name,type,tags`) or JSON (`{"assets": [...]}`) file through
 * `POST /api/assets/bulk`, then the import report: how many were imported, and each
 * refused row with its code and message.
 * @param {{ onImported: () => void }} props
 */
export function AssetImport({ onImported }) {
  const [file, setFile] = useState(/** @type {File | null} */ (null));
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown, report: any }} */ ({ busy: false, error: null, report: null }));

  const upload = async () => {
    if (!file) return;
    const csv = /\.csv$/i.test(file.name) || file.type === 'text/csv';
    setState({ busy: true, error: null, report: null });
    try {
      const response = await send('POST', '/api/assets/bulk', { rawBody: file, contentType: csv ? 'text/csv' : 'application/json' });
      const report = (await response.json()).data;
      setState({ busy: false, error: null, report });
      if (report.imported) onImported();
    } catch (error) {
      setState({ busy: false, error, report: null });
    }
  };

  const r = state.report;
  return html`
    <form class="toolbar" aria-label="Import assets from a file" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void upload(); }}>
      <label for="import-file">CSV or JSON file</label>
      <input id="import-file" type="file" accept=".csv,.json,text/csv,application/json" onChange=${(/** @type {any} */ e) => setFile(e.currentTarget.files?.[0] ?? null)} />
      <button type="submit" disabled=${!file || state.busy}>${state.busy ? 'Importing…' : 'Import'}</button>
    </form>
    <p class="hint">CSV: a header <code>name,type,tags</code>, tags comma-separated inside one quoted cell. JSON: <code>{"assets": [{"name", "type", "tags"}]}</code>. Good rows are imported; refused rows are listed below.</p>
    ${state.error ? html`<${ErrorBox} error=${state.error} action="import the file (nothing was imported)" />` : null}
    ${r && html`
      <div class="import-report" role="status" data-testid="import-report">
        <p><strong>${r.imported} imported, ${r.failed} refused.</strong>${r.errors_truncated ? ` Only the first ${r.errors.length} refusals are listed.` : ''}</p>
        ${r.errors.length ? html`
          <div class="table-wrap" tabindex="0"><table>
            <caption class="visually-hidden">Refused rows</caption>
            <thead><tr><th scope="col">Row</th><th scope="col">Name</th><th scope="col">Code</th><th scope="col">Why</th></tr></thead>
            <tbody>${r.errors.map((e) => html`<tr key=${e.row}><td>${e.row}</td><td>${e.name ?? ''}</td><td><code>${e.code}</code></td><td>${e.message}</td></tr>`)}</tbody>
          </table></div>` : null}
      </div>`}
  `;
}
