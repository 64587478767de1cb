// @ts-check
import { useState } from 'preact/hooks';
import { api, ApiError } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';
import { credentialOf, initialValues, ParameterFields, parametersOf } from './parameter-fields.js';

/** Sets a credential's value: rotate it when it exists, else create it. */
async function setCredential(/** @type {string} */ name, /** @type {string} */ value) {
  try {
    await api.put(`/api/credentials/${encodeURIComponent(name)}`, { value });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    await api.post('/api/credentials', { name, value });
  }
}

/**
 * Trigger an action, or dry-run it: the parameters form is generated from the action's
 * parameter schema. A dry run shows the executor's plan (secrets masked by the API) and
 * changes nothing; a trigger queues a run and links to it.
 * @param {{ action: any, onTriggered: () => void }} props
 */
export function ActionTrigger({ action, onTriggered }) {
  const specs = action.parameters ?? [];
  const [values, setValues] = useState(() => initialValues(specs));
  const [target, setTarget] = useState('');
  const [sandbox, setSandbox] = useState(false);
  const assets = useApi((signal) => (can('assets:read') ? api.get('/api/assets', { sort_by: 'name', sort_order: 'asc', per_page: 100 }, signal) : Promise.resolve({ data: [] })), []);
  const canSetSecrets = can('integrations:manage');
  const submit = useAction(async (/** @type {boolean} */ dryRun) => {
    for (const p of specs) {
      const typed = values[p.name];
      if (p.type === 'secret' && typeof typed === 'string' && typed) await setCredential(credentialOf(p), typed);
    }
    // Typed secrets are gone from the form once stored: nothing keeps them in the page.
    setValues((v) => Object.fromEntries(Object.entries(v).map(([k, x]) => [k, specs.some((/** @type {any} */ p) => p.name === k && p.type === 'secret') ? '' : x])));
    const body = { parameters: parametersOf(specs, values), ...(target ? { target } : {}), ...(sandbox ? { sandbox: true } : {}), ...(dryRun ? { dry_run: true } : {}) };
    const answer = await api.post(`/api/actions/${action.id}/trigger`, body);
    if (!dryRun) onTriggered();
    return { dryRun, data: answer.data };
  });
  const result = submit.result;
  return html`
    <form aria-label="Trigger the action" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void submit.run(false); }}>
      <div class="filters">
        <div><label for="trg-target">Target asset</label>
          <select id="trg-target" value=${target} onChange=${(/** @type {any} */ e) => setTarget(e.currentTarget.value)}>
            <option value="">none</option>${(assets.data?.data ?? []).map((/** @type {any} */ a) => html`<option value=${a.id}>${a.name}</option>`)}
          </select></div>
      </div>
      <${ParameterFields} specs=${specs} values=${values} onChange=${setValues} idPrefix="trg" canSetSecrets=${canSetSecrets} />
      <label class="inline"><input type="checkbox" checked=${sandbox} onChange=${(/** @type {any} */ e) => setSandbox(e.currentTarget.checked)} /> Sandbox (no production access)</label>
      <div class="toolbar">
        <button type="submit" disabled=${submit.busy}>Trigger</button>
        <button type="button" class="secondary" disabled=${submit.busy} onClick=${(/** @type {any} */ e) => { if (e.currentTarget.form.reportValidity()) void submit.run(true); }}>Dry run</button>
      </div>
      <${ErrorBox} error=${submit.error} action="trigger the action" />
      ${result && !result.dryRun ? html`<p role="status" data-testid="trigger-result">Queued: <a href=${href(`/actions/executions/${result.data.execution_id}`)}>execution ${result.data.execution_id}</a>${result.data.approval_id ? html` · waits for <a href=${href('/approvals')}>an approval</a>` : null}</p>` : null}
      ${result?.dryRun ? html`<section class="panel" aria-labelledby="plan-h" data-testid="dry-run-plan"><h3 id="plan-h">Dry run: the plan (nothing was run)</h3>
        <p>Status: ${result.data.status}${result.data.error ? ` · ${result.data.error.code}: ${result.data.error.message}` : ''}</p>
        <pre class="prose">${JSON.stringify(result.data.plan ?? result.data.output?.plan ?? null, null, 2)}</pre></section>` : null}
    </form>
  `;
}
