// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { navigate } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { PlaybookFlow } from './playbook-flow.js';

/**
 * Run a playbook by hand (then watch the run), or dry-run it: the walk the engine would
 * take, drawn on the flow with each step's would-be outcome; nothing runs or is stored.
 * @param {{ playbook: any }} props
 */
export function PlaybookRunForm({ playbook }) {
  const [target, setTarget] = useState('');
  const [paramsText, setParamsText] = useState(() => JSON.stringify(playbook.parameters ?? {}, null, 2));
  const assets = useApi((signal) => (can('assets:read') ? api.get('/api/assets', { sort_by: 'name', sort_order: 'asc', per_page: 100 }, signal) : Promise.resolve({ data: [] })), []);
  const start = useAction(async (/** @type {boolean} */ dryRun) => {
    let parameters;
    try {
      parameters = paramsText.trim() ? JSON.parse(paramsText) : {};
    } catch {
      throw new Error('The parameters are not valid JSON: fix them and try again.');
    }
    const answer = await api.post(`/api/playbooks/${playbook.id}/run`, { parameters, ...(target ? { target_asset_id: target } : {}), ...(dryRun ? { dry_run: true } : {}) });
    if (!dryRun) navigate(`/playbooks/runs/${answer.data.execution_id}`);
    return answer.data;
  });
  const walk = start.result;
  /** @type {Record<string, { status: string }>} */
  const states = {};
  for (const s of walk?.steps ?? []) states[s.step_id] = { status: s.would_run ? (s.outcome?.status ?? 'completed') : 'skipped' };
  return html`
    <form aria-label="Run the playbook" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void start.run(false); }}>
      <div class="filters">
        <div><label for="pbr-target">Target asset</label>
          <select id="pbr-target" value=${target} onChange=${(/** @type {any} */ e) => setTarget(e.currentTarget.value)}>
            <option value="">none</option>${(assets.data?.data ?? []).map((/** @type {any} */ a) => html`<option value=${a.id}>${a.name}</option>`)}
          </select></div>
      </div>
      <label for="pbr-params">Parameters (JSON; the playbook's defaults are filled in)</label>
      <textarea id="pbr-params" class="code-input" rows="3" value=${paramsText} onInput=${(/** @type {any} */ e) => setParamsText(e.currentTarget.value)}></textarea>
      <div class="toolbar">
        <button type="submit" disabled=${start.busy || !playbook.enabled}>Run now</button>
        <button type="button" class="secondary" disabled=${start.busy} onClick=${() => void start.run(true)}>Dry run</button>
        ${!playbook.enabled ? html`<span class="hint">The playbook is disabled: only a dry run is possible.</span>` : null}
      </div>
      <${ErrorBox} error=${start.error} action="start the playbook" />
    </form>
    ${walk ? html`<section class="panel" aria-labelledby="walk-h" data-testid="playbook-dry-run">
      <h3 id="walk-h">Dry run: the run would end ${walk.status} (nothing was run)</h3>
      <${PlaybookFlow} steps=${playbook.steps} states=${states} label="Steps of the dry run" />
    </section>` : null}
  `;
}
