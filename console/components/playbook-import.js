// @ts-check
import { useState } from 'preact/hooks';
import { request } from '../lib/api.js';
import { html } from '../lib/html.js';
import { navigate } from '../lib/router.js';
import { useAction } from '../lib/use-action.js';
import { ErrorBox } from './error-box.js';
import { PlaybookFlow } from './playbook-flow.js';

/** The import route takes the CACAO document itself as the body; `dry_run` is a query flag. */
function importCacao(/** @type {string} */ text, /** @type {boolean} */ dryRun) {
  return request('POST', '/api/playbooks/import', { query: dryRun ? { dry_run: 'true' } : {}, rawBody: text, contentType: 'application/json' });
}

/**
 * Import a CACAO v2 playbook: preview first (the API's dry run: the converted definition,
 * the actions it would create and reuse; nothing written), then import that same text.
 */
export function PlaybookImport() {
  const [text, setText] = useState('');
  const [previewed, setPreviewed] = useState('');
  const preview = useAction(async () => {
    const answer = await importCacao(text, true);
    setPreviewed(text);
    return answer.data;
  });
  const commit = useAction(async () => {
    const answer = await importCacao(previewed, false);
    navigate(`/playbooks/${answer.data.playbook.id}`);
  });
  const readFile = async (/** @type {any} */ e) => {
    const file = e.currentTarget.files?.[0];
    if (file) setText(await file.text());
  };
  const p = preview.result;
  return html`
    <form aria-label="Import a CACAO playbook" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void preview.run(); }}>
      <div class="filters">
        <div><label for="pb-file">CACAO v2 file (JSON)</label><input id="pb-file" type="file" accept=".json,application/json" onChange=${readFile} /></div>
      </div>
      <label for="pb-text">Or paste the document</label>
      <textarea id="pb-text" class="code-input" rows="6" required value=${text} onInput=${(/** @type {any} */ e) => setText(e.currentTarget.value)}></textarea>
      <div class="toolbar"><button type="submit" disabled=${preview.busy || !text}>Preview the import</button></div>
      <${ErrorBox} error=${preview.error} action="read the playbook" />
    </form>
    ${p && previewed === text ? html`
      <section class="panel" aria-labelledby="pb-preview-h" data-testid="import-preview">
        <h3 id="pb-preview-h">Preview: nothing is written yet</h3>
        <dl class="facts">
          <dt>Playbook</dt><dd>${p.playbook.name} ${p.playbook.version}</dd>
          <dt>Trigger</dt><dd><code>${p.playbook.trigger.event}</code></dd>
          <dt>Actions it creates</dt><dd>${p.actions.length ? p.actions.map((/** @type {any} */ a) => a.name).join(', ') : 'none'}</dd>
          <dt>Actions it reuses</dt><dd>${p.reused_actions.length ? p.reused_actions.map((/** @type {any} */ a) => `${a.name} ${a.version}`).join(', ') : 'none'}</dd>
        </dl>
        <${PlaybookFlow} steps=${p.playbook.steps} label="Steps of the imported playbook" />
        <div class="toolbar"><button type="button" disabled=${commit.busy} onClick=${() => void commit.run()}>Import it</button></div>
        <${ErrorBox} error=${commit.error} action="import the playbook" />
      </section>` : null}
  `;
}
