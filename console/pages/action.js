// @ts-check
import { useState } from 'preact/hooks';
import { ActionTrigger } from '../components/action-trigger.js';
import { ErrorBox } from '../components/error-box.js';
import { ExecutionList } from '../components/execution-list.js';
import { Loading, NeedsScope } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';

/** One action: its definition (parameters), trigger / dry run, and its executions. */
export default function Action({ params }) {
  const action = useApi((signal) => api.get(`/api/actions/${params.id}`, {}, signal), [params.id]);
  const [version, setVersion] = useState(0);
  if (action.error) return html`<p><a href=${href('/actions')}>← Actions</a></p><h1 tabindex="-1">Action</h1><${ErrorBox} error=${action.error} action="load the action" onRetry=${action.reload} />`;
  if (!action.data) return html`<${Loading} />`;
  const a = action.data.data;
  return html`
    <p><a href=${href('/actions')}>← Actions</a></p>
    <h1 tabindex="-1">${a.name}</h1>
    <section class="panel" aria-labelledby="act-def">
      <h2 id="act-def">Definition</h2>
      <dl class="facts">
        <dt>Type</dt><dd>${a.type}</dd>
        <dt>Executor</dt><dd>${a.executor}${a.executor_detail?.target ? html` → <code>${a.executor_detail.target}</code>` : null}</dd>
        <dt>Version</dt><dd>${a.version} (${a.view} view)</dd>
        <dt>Usable</dt><dd>${a.enabled ? 'enabled' : 'disabled: only sandbox runs'}</dd>
        <dt>Timeout</dt><dd>${a.timeout_seconds} s · ${a.retry.max_attempts} attempt(s)</dd>
        ${a.description ? html`<dt>Description</dt><dd>${a.description}</dd>` : null}
      </dl>
      <h3>Parameters</h3>
      ${a.parameters.length ? html`<ul>${a.parameters.map((/** @type {any} */ p) => html`<li><code>${p.name}</code>: ${p.type}${p.required ? ', required' : ''}${p.type === 'secret' ? html` (credential <code>${p.credential ?? p.name}</code>)` : null}${p.description ? ` — ${p.description}` : ''}</li>`)}</ul>` : html`<p>None.</p>`}
    </section>
    <section class="panel" aria-labelledby="act-run">
      <h2 id="act-run">Run it</h2>
      ${can('actions:execute') ? html`<${ActionTrigger} action=${a} onTriggered=${() => setVersion((v) => v + 1)} />` : html`<p>Triggering <${NeedsScope} scope="actions:execute" />.</p>`}
    </section>
    <${ExecutionList} actionId=${a.id} version=${version} />
  `;
}
