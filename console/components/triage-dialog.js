// @ts-check
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../lib/html.js';
import { setFindingStatus } from '../lib/triage.js';
import { ErrorBox } from './error-box.js';

/**
 * Confirms one status change with an optional note (a modal <dialog>: Escape cancels,
 * Enter saves). Opened from the findings list's keyboard shortcuts and buttons.
 * @param {{ finding: { id: string, title: string, status: string } | null, status: string, onDone: (result: { id: string, status: string } | null) => void }} props
 */
export function TriageDialog({ finding, status, onDone }) {
  const dialog = useRef(/** @type {HTMLDialogElement | null} */ (null));
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(/** @type {unknown} */ (null));
  // What the close event reports: the saved change, or null (Escape, Cancel). The dialog
  // closes first, so the browser has given focus back before the list moves it on.
  const outcome = useRef(/** @type {{ id: string, status: string } | null} */ (null));
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (finding && !el.open) {
      outcome.current = null;
      setNote('');
      setError(null);
      el.showModal();
    } else if (!finding && el.open) el.close();
  }, [finding]);

  const save = async () => {
    if (!finding) return;
    setBusy(true);
    setError(null);
    try {
      const result = (await setFindingStatus(finding.id, status, note)).data;
      outcome.current = { id: finding.id, status: result.status };
      dialog.current?.close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return html`
    <dialog ref=${dialog} class="triage-dialog" aria-labelledby="triage-title" onClose=${() => finding && onDone(outcome.current)}>
      <form onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void save(); }}>
        <h2 id="triage-title">Mark as ${status.replace(/_/g, ' ')}</h2>
        <p>${finding?.title} <small>(now ${finding?.status.replace(/_/g, ' ')})</small></p>
        <label for="triage-note">Note (optional, kept in the finding's history)</label>
        <input id="triage-note" autocomplete="off" maxlength="10000" value=${note} onInput=${(/** @type {any} */ e) => setNote(e.currentTarget.value)} />
        ${error ? html`<${ErrorBox} error=${error} action="change the status" />` : null}
        <div class="toolbar">
          <button type="submit" disabled=${busy}>${busy ? 'Saving…' : `Save: ${status.replace(/_/g, ' ')}`}</button>
          <button type="button" class="secondary" onClick=${() => dialog.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  `;
}
