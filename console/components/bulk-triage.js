// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { FINDING_STATUSES, bulkSetStatus } from '../lib/triage.js';
import { ErrorBox } from './error-box.js';

/**
 * Sets one status (and note) on every selected finding, showing how far it got, when a
 * rate limit makes it wait, and which findings failed and why.
 * @param {{ selected: string[], titles: Record<string, string>, onFinished: () => void, onClear: () => void }} props
 */
export function BulkTriage({ selected, titles, onFinished, onClear }) {
  const [status, setStatus] = useState('resolved');
  const [note, setNote] = useState('');
  const [run, setRun] = useState(/** @type {null | { total: number, done: number, failed: Array<{ id: string, error: any }>, waitingUntil: number | null, finished: boolean, fatal: unknown }} */ (null));
  const controller = useRef(/** @type {AbortController | null} */ (null));
  const [, tick] = useState(0);
  useEffect(() => () => controller.current?.abort(), []);
  useEffect(() => {
    if (!run?.waitingUntil) return undefined;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [run?.waitingUntil]);

  const apply = async () => {
    const ids = [...selected];
    controller.current = new AbortController();
    setRun({ total: ids.length, done: 0, failed: [], waitingUntil: null, finished: false, fatal: null });
    try {
      const result = await bulkSetStatus(ids, status, note, {
        signal: controller.current.signal,
        onProgress: (p) => setRun((r) => r && { ...r, done: p.done, failed: [...p.failed], waitingUntil: p.waitingUntil }),
      });
      setRun((r) => r && { ...r, done: result.done, failed: result.failed, waitingUntil: null, finished: true });
    } catch (fatal) {
      setRun((r) => r && { ...r, finished: true, fatal, waitingUntil: null });
    }
    onFinished();
  };

  const running = run && !run.finished;
  if (!selected.length && !run) return null;
  const wait = run?.waitingUntil ? Math.max(0, Math.ceil((run.waitingUntil - Date.now()) / 1000)) : 0;
  return html`
    <section class="bulk panel" aria-labelledby="bulk-title">
      <h2 id="bulk-title">${selected.length} selected</h2>
      <form class="toolbar" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void apply(); }}>
        <label for="bulk-status">New status</label>
        <select id="bulk-status" value=${status} onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
          ${FINDING_STATUSES.map((s) => html`<option value=${s}>${s.replace(/_/g, ' ')}</option>`)}
        </select>
        <label for="bulk-note">Note</label>
        <input id="bulk-note" value=${note} placeholder="optional" onInput=${(/** @type {any} */ e) => setNote(e.currentTarget.value)} />
        <button type="submit" disabled=${!selected.length || !!running}>Apply to ${selected.length}</button>
        ${running
          ? html`<button type="button" class="secondary" onClick=${() => controller.current?.abort()}>Stop</button>`
          : html`<button type="button" class="secondary" onClick=${() => { setRun(null); onClear(); }}>Clear selection</button>`}
      </form>
      ${run && html`
        <div role="status" aria-live="polite" data-bulk=${run.finished ? 'finished' : 'running'}>
          <progress max=${run.total} value=${run.done + run.failed.length} aria-label="Bulk triage progress"></progress>
          <p>${run.finished ? 'Done' : 'Updating'}: ${run.done} of ${run.total} changed${run.failed.length ? `, ${run.failed.length} failed` : ''}.${wait > 0 ? ` Rate limited: continuing in ${wait} s.` : ''}</p>
        </div>`}
      ${run?.failed.length ? html`<ul class="error-details">${run.failed.map((f) => html`<li key=${f.id}>${titles[f.id] ?? f.id}: ${f.error.message} (<code>${f.error.code}</code>)</li>`)}</ul>` : null}
      ${run?.fatal ? html`<${ErrorBox} error=${run.fatal} action="finish the bulk change" />` : null}
    </section>
  `;
}
