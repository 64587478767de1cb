// @ts-check
import { useEvents } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { Loading, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';

const ENDED = ['completed', 'failed', 'timed_out', 'cancelled'];

/** One action execution: its state (live), output or error, parameters (non-secret only), and log lines. */
export default function Execution({ params }) {
  const run = useApi((signal) => api.get(`/api/actions/executions/${params.id}`, {}, signal), [params.id]);
  useEvents(['action.triggered', 'action.completed', 'action.failed'], (event) => {
    if (event.kind === 'stream.resumed' || event.data?.execution_id === params.id) run.reload({ quiet: true });
  });
  const cancel = useAction(async () => {
    await api.post(`/api/actions/executions/${params.id}/cancel`);
    run.reload({ quiet: true });
  });
  if (run.error) return html`<p><a href=${href('/actions')}>← Actions</a></p><h1 tabindex="-1">Execution</h1><${ErrorBox} error=${run.error} action="load the execution" onRetry=${run.reload} />`;
  if (!run.data) return html`<${Loading} />`;
  const x = run.data.data;
  return html`
    <p><a href=${href(`/actions/${x.action_id}`)}>← ${x.action_name}</a></p>
    <h1 tabindex="-1">Execution of ${x.action_name}</h1>
    <section class="panel" aria-labelledby="x-state">
      <h2 id="x-state">State</h2>
      <dl class="facts">
        <dt>Status</dt><dd data-testid="execution-status"><${StatusBadge} status=${x.status} />${x.cancel_requested && !ENDED.includes(x.status) ? ' (cancel requested)' : ''}</dd>
        <dt>Version</dt><dd>${x.action_version}</dd>
        <dt>Kind</dt><dd>${[x.dry_run ? 'dry run' : null, x.sandbox ? 'sandbox' : null].filter(Boolean).join(', ') || 'production run'}</dd>
        ${x.approval_id ? html`<dt>Approval</dt><dd><a href=${href('/approvals', { status: '' })}>${x.approval_id}</a></dd>` : null}
        <dt>Attempt</dt><dd>${x.attempt} of ${x.max_attempts}</dd>
        <dt>Created</dt><dd><${Time} value=${x.created_at} /></dd>
        <dt>Ended</dt><dd><${Time} value=${x.completed_at} empty="not yet" />${x.duration_seconds !== null ? ` (${x.duration_seconds} s)` : ''}</dd>
      </dl>
      ${!ENDED.includes(x.status) && can('actions:execute') ? html`<div class="toolbar"><button type="button" class="danger" disabled=${cancel.busy} onClick=${() => void cancel.run()}>Cancel the run</button></div>` : null}
      <${ErrorBox} error=${cancel.error} action="cancel the run" />
      ${x.error ? html`<p class="error-box">Error <code>${x.error.code}</code>: ${x.error.message}</p>` : null}
      <h3>Parameters <small>(secret values are never stored)</small></h3>
      <pre class="prose">${JSON.stringify(x.parameters, null, 2)}</pre>
      <h3>Output</h3>
      <pre class="prose" data-testid="execution-output">${JSON.stringify(x.output, null, 2)}</pre>
    </section>
    <section class="panel" aria-labelledby="x-logs">
      <h2 id="x-logs">Logs</h2>
      ${x.logs?.length ? html`<ol class="plain-list log-lines">${x.logs.map((/** @type {any} */ l) => html`<li><${Time} value=${l.timestamp} /> <strong>${l.level}</strong> <small>attempt ${l.attempt}</small> <span class="prose">${l.message}</span></li>`)}</ol>` : html`<p>No log lines.</p>`}
    </section>
  `;
}
