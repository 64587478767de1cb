// @ts-check
import { useState } from 'preact/hooks';
import { useLiveReload } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { PlaybookFlow } from '../components/playbook-flow.js';
import { PlaybookRunForm } from '../components/playbook-run-form.js';
import { Loading, NeedsScope, Pager, StatusBadge, Time } from '../components/ui.js';
import { api, send } from '../lib/api.js';
import { saveResponse } from '../lib/download.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';

/** @param {{ playbookId: string }} props */
function Runs({ playbookId }) {
  const [page, setPage] = useState(1);
  const list = useApi((signal) => api.get(`/api/playbooks/${playbookId}/executions`, { page }, signal), [playbookId, page]);
  useLiveReload(['playbook.started', 'playbook.completed', 'playbook.failed'], list.reload);
  return html`
    <section class="panel" aria-labelledby="runs-h">
      <h2 id="runs-h">Runs</h2>
      <${ErrorBox} error=${list.error} action="load the runs" onRetry=${list.reload} />
      ${list.loading && !list.data ? html`<${Loading} />` : null}
      ${list.data && html`
        <ul class="plain-list" data-testid="playbook-runs">${list.data.data.map((/** @type {any} */ r) => html`
          <li key=${r.execution_id}><a href=${href(`/playbooks/runs/${r.execution_id}`)}><code>${r.execution_id}</code></a> <${StatusBadge} status=${r.status} /> ${r.steps_completed}/${r.steps_total} steps · <${Time} value=${r.created_at} />${r.trigger_event_id ? ` · triggered by event ${r.trigger_event_id}` : ' · by hand'}</li>`)}
        </ul>
        ${!list.data.data.length ? html`<p>Never run.</p>` : null}
        <${Pager} meta=${list.data.meta} onPage=${setPage} label="Run pages" />
      `}
    </section>
  `;
}

/** One playbook: its steps drawn as a flow, run or dry-run it, CACAO export, its runs. */
export default function Playbook({ params }) {
  const pb = useApi((signal) => api.get(`/api/playbooks/${params.id}`, {}, signal), [params.id]);
  const exportFile = useAction(async () => saveResponse(await send('GET', `/api/playbooks/${params.id}/export`, { query: { format: 'cacao_v2' } }), 'playbook.cacao.json'));
  if (pb.error) return html`<p><a href=${href('/playbooks')}>← Playbooks</a></p><h1 tabindex="-1">Playbook</h1><${ErrorBox} error=${pb.error} action="load the playbook" onRetry=${pb.reload} />`;
  if (!pb.data) return html`<${Loading} />`;
  const p = pb.data.data;
  return html`
    <p><a href=${href('/playbooks')}>← Playbooks</a></p>
    <h1 tabindex="-1">${p.name}</h1>
    <section class="panel" aria-labelledby="pb-def">
      <h2 id="pb-def">Definition</h2>
      <dl class="facts">
        <dt>Version</dt><dd>${p.version}</dd>
        <dt>Trigger</dt><dd><code>${p.trigger.event}</code>${Object.keys(p.trigger.conditions ?? {}).length ? html` when <code>${JSON.stringify(p.trigger.conditions)}</code>` : null}</dd>
        <dt>On a failed step</dt><dd>${p.on_failure === 'continue' ? 'continue' : 'stop the run'}</dd>
        <dt>Timeout</dt><dd>${p.timeout_minutes} min</dd>
        <dt>State</dt><dd>${p.enabled ? 'enabled' : 'disabled'}</dd>
        ${p.description ? html`<dt>Description</dt><dd>${p.description}</dd>` : null}
      </dl>
      <div class="toolbar">
        <button type="button" class="secondary" disabled=${exportFile.busy} onClick=${() => void exportFile.run()}>Export as CACAO v2</button>
        ${exportFile.result ? html`<span role="status">Saved ${exportFile.result.name}.</span>` : null}
      </div>
      <${ErrorBox} error=${exportFile.error} action="export the playbook" />
      <h3>Steps</h3>
      <${PlaybookFlow} steps=${p.steps} label=${`Steps of ${p.name}`} />
    </section>
    <section class="panel" aria-labelledby="pb-run">
      <h2 id="pb-run">Run it</h2>
      ${can('playbooks:run') ? html`<${PlaybookRunForm} playbook=${p} />` : html`<p>Running <${NeedsScope} scope="playbooks:run" />.</p>`}
    </section>
    <${Runs} playbookId=${p.id} />
  `;
}
