// @ts-check
import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { Loading, Time } from '../components/ui.js';
import { WebhookDeliveries } from '../components/webhook-deliveries.js';
import { WebhookForm } from '../components/webhook-form.js';
import { WebhookRecover, WebhookRotate, WebhookTest } from '../components/webhook-tools.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, navigate } from '../lib/router.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';

/** One webhook: its settings (edit), test, deliveries with retry, recover, secret rotation, delete. */
export default function Webhook({ params }) {
  const hook = useApi((signal) => api.get(`/api/webhooks/${params.id}`, {}, signal), [params.id]);
  // Bumped after a test, retry or recover so the deliveries list reads again.
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  const [saved, setSaved] = useState(/** @type {string | null} */ (null));
  const remove = useAction(async () => {
    await api.del(`/api/webhooks/${params.id}`);
    navigate('/webhooks');
  });
  if (hook.error) return html`<p><a href=${href('/webhooks')}>← Webhooks</a></p><h1 tabindex="-1">Webhook</h1><${ErrorBox} error=${hook.error} action="load the webhook" onRetry=${hook.reload} />`;
  if (!hook.data) return html`<${Loading} />`;
  const w = hook.data.data;
  return html`
    <p><a href=${href('/webhooks')}>← Webhooks</a></p>
    <h1 tabindex="-1">${w.name}</h1>
    <section class="panel" aria-labelledby="wh-facts">
      <h2 id="wh-facts">Settings</h2>
      <dl class="facts">
        <dt>Endpoint</dt><dd><code>${w.url}</code></dd>
        <dt>State</dt><dd>${w.active ? 'active' : `inactive${w.disabled_reason === 'failing' ? ' (Rampart disabled it: the endpoint kept failing)' : ''}`}</dd>
        <dt>Events</dt><dd>${w.events.join(', ')}</dd>
        <dt>Signing secret</dt><dd>${w.has_secret ? 'set (never shown)' : 'none: deliveries are not signed'}${w.secret_rotation_ends_at ? html`; the previous secret also signs until <${Time} value=${w.secret_rotation_ends_at} />` : null}</dd>
        <dt>Custom headers</dt><dd>${w.header_names.length ? w.header_names.join(', ') : 'none'} <small>(values are never shown)</small></dd>
        <dt>Failing since</dt><dd><${Time} value=${w.failing_since} empty="not failing" /></dd>
      </dl>
      <${WebhookTest} hookId=${w.id} onDone=${bump} />
      <details><summary>Edit</summary><${WebhookForm} key=${w.updated_at} webhook=${w} notice=${saved} onSaved=${() => { setSaved('Saved.'); hook.reload({ quiet: true }); }} /></details>
      <details><summary>Rotate the secret</summary><${WebhookRotate} hookId=${w.id} onDone=${() => hook.reload({ quiet: true })} /></details>
      <details><summary>Recover failed deliveries of a time range</summary><${WebhookRecover} hookId=${w.id} onDone=${bump} /></details>
      <div class="toolbar"><button type="button" class="danger" disabled=${remove.busy} onClick=${() => window.confirm(`Delete the webhook ${w.name}?`) && void remove.run()}>Delete webhook</button></div>
      <${ErrorBox} error=${remove.error} action="delete the webhook" />
    </section>
    <${WebhookDeliveries} hookId=${w.id} version=${version} />
  `;
}
