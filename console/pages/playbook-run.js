// @ts-check
import { useLiveReload } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { PlaybookFlow } from '../components/playbook-flow.js';
import { Loading, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';

const ENDED = ['completed', 'failed', 'cancelled'];

/** One playbook run, live: its state and every step's state drawn on the flow. */
export default function PlaybookRun({ params }) {
  const run = useApi(async (signal) => {
    const record = (await api.get(`/api/playbooks/executions/${params.id}`, {}, signal)).data;
    const [steps, playbook] = await Promise.all([
      api.get(`/api/playbooks/executions/${params.id}/steps`, {}, signal),
      // The flow of the version that runs (a newer version may be active by now).
      api.get(`/api/playbooks/${record.playbook_id}/versions`, { per_page: 100 }, signal),
    ]);
    const version = playbook.data.find((/** @type {any} */ v) => v.version === record.playbook_version) ?? playbook.data[0];
    return { record, steps: steps.data, definition: version };
  }, [params.id]);
  // Step states move with the actions the steps run and with the run's own events.
  useLiveReload(['playbook.started', 'playbook.completed', 'playbook.failed', 'action.triggered', 'action.completed', 'action.failed'], run.reload, 300);
  const cancel = useAction(async () => {
    await api.post(`/api/playbooks/executions/${params.id}/cancel`);
    run.reload({ quiet: true });
  });
  if (run.error) return html`<p><a href=${href('/playbooks')}>← Playbooks</a></p><h1 tabindex="-1">Playbook run</h1><${ErrorBox} error=${run.error} action="load the run" onRetry=${run.reload} />`;
  if (!run.data) return html`<${Loading} />`;
  const { record: r, steps, definition } = run.data;
  /** @type {Record<string, { status: string, error?: any }>} */
  const states = Object.fromEntries(steps.map((/** @type {any} */ s) => [s.step_id, { status: s.status, error: s.error }]));
  return html`
    <p><a href=${href(`/playbooks/${r.playbook_id}`)}>← ${r.playbook_name}</a></p>
    <h1 tabindex="-1">Run of ${r.playbook_name}</h1>
    <section class="panel" aria-labelledby="run-state">
      <h2 id="run-state">State</h2>
      <dl class="facts">
        <dt>Status</dt><dd data-testid="run-status"><${StatusBadge} status=${r.status} /></dd>
        <dt>Steps completed</dt><dd>${r.steps_completed} of ${r.steps_total}</dd>
        <dt>Version</dt><dd>${r.playbook_version}</dd>
        <dt>Started</dt><dd><${Time} value=${r.started_at} empty="not yet" /></dd>
        <dt>Ended</dt><dd><${Time} value=${r.completed_at} empty="not yet" /></dd>
      </dl>
      ${r.error ? html`<p class="error-box">Error <code>${r.error.code}</code>${r.error.message ? `: ${r.error.message}` : ''}</p>` : null}
      ${!ENDED.includes(r.status) && can('playbooks:run') ? html`<div class="toolbar"><button type="button" class="danger" disabled=${cancel.busy} onClick=${() => void cancel.run()}>Cancel the run</button></div>` : null}
      <${ErrorBox} error=${cancel.error} action="cancel the run" />
    </section>
    <section class="panel" aria-labelledby="run-steps">
      <h2 id="run-steps">Steps</h2>
      <${PlaybookFlow} steps=${definition.steps} states=${states} label="Steps of this run with their states" />
      <ul class="plain-list">${steps.filter((/** @type {any} */ s) => s.action_execution_id).map((/** @type {any} */ s) => html`<li>${s.step_name}: <a href=${href(`/actions/executions/${s.action_execution_id}`)}>action execution and its logs</a></li>`)}</ul>
    </section>
  `;
}
