// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { newWebhookSecret } from '../lib/secrets.js';
import { useAction } from '../lib/use-action.js';
import { ErrorBox } from './error-box.js';
import { SecretOnce } from './secret-once.js';

/**
 * "Send a test": one signed `webhook.test` delivery sent by the request itself, whose
 * outcome is shown here and listed with the deliveries.
 * @param {{ hookId: string, onDone: () => void }} props
 */
export function WebhookTest({ hookId, onDone }) {
  const test = useAction(async () => {
    const answer = await api.post(`/api/webhooks/${hookId}/test`);
    onDone();
    return answer.data;
  });
  const d = test.result;
  return html`
    <div class="toolbar">
      <button type="button" disabled=${test.busy} onClick=${() => void test.run()}>Send a test</button>
      ${d ? html`<span role="status" data-testid="test-result">Test ${d.status}${d.response_code !== null ? `, HTTP ${d.response_code}` : ''}${d.last_error ? `: ${d.last_error}` : ''}</span>` : null}
    </div>
    <${ErrorBox} error=${test.error} action="send the test" />
  `;
}

/** `datetime-local` text (local time, no zone) → ISO 8601 in UTC, or null. */
function isoOf(/** @type {string} */ local) {
  return local ? new Date(local).toISOString() : null;
}

/**
 * Recover: resends the failed deliveries created in a time range (after an outage of the
 * receiver), each as a new round of attempts.
 * @param {{ hookId: string, onDone: () => void }} props
 */
export function WebhookRecover({ hookId, onDone }) {
  const [range, setRange] = useState({ since: '', until: '' });
  const recover = useAction(async () => {
    const answer = await api.post(`/api/webhooks/${hookId}/recover`, { since: isoOf(range.since), ...(range.until ? { until: isoOf(range.until) } : {}) });
    onDone();
    return answer.data;
  });
  return html`
    <form aria-label="Recover failed deliveries" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void recover.run(); }}>
      <div class="filters">
        <div><label for="rec-since">Failed since (your local time)</label><input id="rec-since" type="datetime-local" required value=${range.since} onInput=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setRange((f) => ({ ...f, since: v })); }} /></div>
        <div><label for="rec-until">Until (empty: now)</label><input id="rec-until" type="datetime-local" value=${range.until} onInput=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setRange((f) => ({ ...f, until: v })); }} /></div>
        <div><button type="submit" disabled=${recover.busy}>Resend failed deliveries</button></div>
      </div>
      ${recover.result ? html`<p role="status">${recover.result.requeued} deliver${recover.result.requeued === 1 ? 'y' : 'ies'} queued again.</p>` : null}
      <${ErrorBox} error=${recover.error} action="recover the deliveries" />
    </form>
  `;
}

/**
 * Rotate the secret: a new random secret is made here, sent once, and shown once with a
 * copy button. The old one keeps signing too during the grace period, so the receiver
 * can switch without losing deliveries.
 * @param {{ hookId: string, onDone: () => void }} props
 */
export function WebhookRotate({ hookId, onDone }) {
  const [grace, setGrace] = useState('86400');
  const [shown, setShown] = useState(/** @type {string | null} */ (null));
  const rotate = useAction(async () => {
    const secret = newWebhookSecret();
    await api.post(`/api/webhooks/${hookId}/rotate-secret`, { secret, grace_period_seconds: Number(grace) });
    setShown(secret);
    onDone();
  });
  return html`
    <form aria-label="Rotate the secret" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void rotate.run(); }}>
      <div class="filters">
        <div><label for="rot-grace">Old secret keeps signing for</label>
          <select id="rot-grace" value=${grace} onChange=${(/** @type {any} */ e) => setGrace(e.currentTarget.value)}>
            <option value="0">no time (stop now)</option><option value="3600">1 hour</option><option value="86400">1 day</option><option value="604800">7 days</option>
          </select></div>
        <div><button type="submit" disabled=${rotate.busy}>Rotate the secret</button></div>
      </div>
      <${ErrorBox} error=${rotate.error} action="rotate the secret" />
    </form>
    ${shown ? html`<${SecretOnce} label="The new signing secret." value=${shown} onDismiss=${() => setShown(null)} />` : null}
  `;
}
