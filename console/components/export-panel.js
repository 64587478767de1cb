// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, send } from '../lib/api.js';
import { saveResponse } from '../lib/download.js';
import { html } from '../lib/html.js';
import { ErrorBox } from './error-box.js';

const FORMATS = [['csv', 'CSV'], ['json', 'JSON'], ['pdf', 'PDF report']];
const STATUS_WORDS = { queued: 'Queued: waiting for a worker…', running: 'Writing the file…', completed: 'Ready.', failed: 'Failed.', expired: 'Expired: the file was deleted.' };

/**
 * Exports the findings matching `filters` (POST /api/findings/export). A small export
 * comes back as the file itself; a large one is written in the background (202) and this
 * panel follows its status until the file is ready, then downloads it.
 * @param {{ filters: Record<string, unknown>, pageFilters: Record<string, unknown>, total: number | null }} props
 */
export function ExportPanel({ filters, pageFilters, total }) {
  const [format, setFormat] = useState('csv');
  const [onlyPage, setOnlyPage] = useState(false);
  const [job, setJob] = useState(/** @type {any} */ (null));
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown, done: string | null, started: number }} */ ({ busy: false, error: null, done: null, started: 0 }));
  const [now, setNow] = useState(Date.now());
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  /** @param {any} current */
  const follow = async (current) => {
    let view = current;
    while (alive.current && (view.status === 'queued' || view.status === 'running')) {
      await new Promise((r) => setTimeout(r, 1000));
      setNow(Date.now());
      try {
        view = (await api.get(view.status_url)).data;
      } catch (err) {
        // A 429 while polling is not the export failing: wait as told and go on.
        if (err instanceof ApiError && err.retryAfter !== null) {
          await new Promise((r) => setTimeout(r, /** @type {number} */ (err.retryAfter) * 1000));
          continue;
        }
        throw err;
      }
      if (alive.current) setJob(view);
    }
    if (view.status !== 'completed') throw new ApiError(0, view.status === 'failed' ? 'export_failed' : 'export_expired', view.error ?? `The export ${view.status}.`);
    const file = await saveResponse(await send('GET', view.download_url), `findings-${view.id}.${view.format}`);
    return `Downloaded ${file.name} (${view.row_count} findings, ${formatBytes(file.size)}).`;
  };

  const start = async () => {
    setJob(null);
    setState({ busy: true, error: null, done: null, started: Date.now() });
    try {
      const response = await send('POST', '/api/findings/export', { body: { format, filters: onlyPage ? pageFilters : filters } });
      let done;
      if (response.status === 202) {
        const view = (await response.json()).data;
        setJob(view);
        done = await follow(view);
      } else {
        const file = await saveResponse(response, `findings.${format}`);
        done = `Downloaded ${file.name} (${formatBytes(file.size)}).`;
      }
      if (alive.current) setState((s) => ({ ...s, busy: false, done }));
    } catch (error) {
      if (alive.current) setState((s) => ({ ...s, busy: false, error }));
    }
  };

  const elapsed = Math.max(0, Math.round((now - state.started) / 1000));
  return html`
    <form class="export-panel toolbar" aria-label="Export findings" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void start(); }}>
      <label for="export-format">Export format</label>
      <select id="export-format" value=${format} onChange=${(/** @type {any} */ e) => setFormat(e.currentTarget.value)}>
        ${FORMATS.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
      </select>
      <label class="inline"><input type="checkbox" checked=${onlyPage} onChange=${(/** @type {any} */ e) => setOnlyPage(e.currentTarget.checked)} /> Only this page</label>
      <button type="submit" disabled=${state.busy}>${state.busy ? 'Exporting…' : `Export ${onlyPage ? 'this page' : total === null ? 'matching findings' : `${total} matching findings`}`}</button>
    </form>
    ${job && html`
      <div class="export-progress" role="status" aria-live="polite" data-export-status=${job.status}>
        <p>Large export (${job.total_rows} findings, ${job.format.toUpperCase()}) runs in the background: <strong>${STATUS_WORDS[/** @type {keyof typeof STATUS_WORDS} */ (job.status)] ?? job.status}</strong> ${state.busy ? `${elapsed} s` : ''}</p>
        ${job.status === 'queued' || job.status === 'running' ? html`<progress aria-label="Export progress"></progress>` : null}
        ${job.expires_at && job.status === 'completed' ? html`<p class="hint">The file is kept until ${new Date(job.expires_at).toLocaleString()}.</p>` : null}
      </div>`}
    ${state.done && html`<p class="notice" role="status">${state.done}</p>`}
    ${state.error ? html`<${ErrorBox} error=${state.error} action="export the findings" onRetry=${() => void start()} />` : null}
  `;
}

/** @param {number} bytes */
function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
