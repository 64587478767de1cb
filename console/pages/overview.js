// @ts-check
import { useState } from 'preact/hooks';
import { useEvents, useLiveReload } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { TrendChart } from '../components/trend-chart.js';
import { Loading, NeedsScope, SeverityBadge, StatusBadge } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';
import { SEVERITIES } from '../lib/vocabulary.js';

const STATUSES = ['open', 'confirmed', 'resolved', 'false_positive', 'accepted_risk'];
/** Webhooks whose deliveries the overview looks at (one request each; the rest are a link away). */
const WEBHOOKS_CHECKED = 5;

/**
 * A section that needs a scope: its content, or the reason it is empty.
 * @param {{ id: string, title: string, scope: string | string[], children: any }} props
 */
function Section({ id, title, scope, children }) {
  const scopes = Array.isArray(scope) ? scope : [scope];
  const allowed = scopes.some((s) => can(s));
  return html`
    <section class="panel" aria-labelledby=${id}>
      <h2 id=${id}>${title}</h2>
      ${allowed ? children : html`<p>Not shown: <${NeedsScope} scope=${scopes.join(' or ')} /></p>`}
    </section>
  `;
}

/** Open findings by severity: one count per severity (`per_page=1`, the total is in meta). */
function OpenBySeverity() {
  const counts = useApi(async (signal) => {
    const totals = await Promise.all(SEVERITIES.map((severity) => api.get('/api/findings', { status: 'open', severity, per_page: 1 }, signal)));
    return Object.fromEntries(SEVERITIES.map((s, i) => [s, totals[i].meta.total]));
  }, []);
  useLiveReload(['finding.new', 'finding.status_changed'], counts.reload);
  if (counts.error) return html`<${ErrorBox} error=${counts.error} action="count the open findings" onRetry=${counts.reload} />`;
  if (!counts.data) return html`<${Loading} />`;
  const data = counts.data;
  return html`
    <ul class="tiles" data-testid="open-by-severity">
      ${SEVERITIES.map((s) => html`
        <li key=${s} class=${`tile sev-${s}`}>
          <a href=${href('/findings', { status: 'open', severity: s })}>
            <span class="tile-label"><${SeverityBadge} severity=${s} /></span>
            <span class="tile-value" data-severity=${s}>${data[s]}</span><span class="visually-hidden"> open findings</span>
          </a>
        </li>`)}
    </ul>
  `;
}

/** Every finding by status, and the 30-day trend, from GET /api/findings/stats. */
function StatusAndTrend() {
  const stats = useApi((signal) => api.get('/api/findings/stats', {}, signal).then((r) => r.data), []);
  useLiveReload(['finding.new', 'finding.status_changed'], stats.reload, 1500);
  if (stats.error) return html`<${ErrorBox} error=${stats.error} action="load the finding statistics" onRetry=${stats.reload} />`;
  if (!stats.data) return html`<${Loading} />`;
  const s = stats.data;
  const trend = s.trend.last_30_days;
  return html`
    <h3>All findings by status <small>(${s.total} in all)</small></h3>
    <ul class="tiles" data-testid="by-status">
      ${STATUSES.map((st) => html`
        <li key=${st} class="tile">
          <a href=${href('/findings', { status: st })}><span class="tile-label"><${StatusBadge} status=${st} /></span><span class="tile-value" data-status=${st}>${s.by_status[st]}</span></a>
        </li>`)}
    </ul>
    <h3>Last 30 days: ${trend.new} new, ${trend.resolved} resolved (net ${trend.net_change >= 0 ? '+' : ''}${trend.net_change})</h3>
    <${TrendChart} days=${trend.daily} />
  `;
}

function RiskiestAssets() {
  const assets = useApi((signal) => api.get('/api/assets', { sort_by: 'risk_score', sort_order: 'desc', per_page: 10 }, signal), []);
  useLiveReload(['finding.new', 'finding.status_changed', 'asset.created'], assets.reload, 2000);
  if (assets.error) return html`<${ErrorBox} error=${assets.error} action="load the assets" onRetry=${assets.reload} />`;
  if (!assets.data) return html`<${Loading} />`;
  if (!assets.data.data.length) return html`<p>No assets yet. <a href=${href('/assets')}>Add one</a>.</p>`;
  return html`
    <div class="table-wrap" tabindex="0">
      <table data-testid="riskiest-assets">
        <thead><tr><th scope="col">Asset</th><th scope="col">Risk score</th><th scope="col" class="hide-narrow">Type</th></tr></thead>
        <tbody>
          ${assets.data.data.map((a) => html`
            <tr key=${a.id}>
              <td><a href=${href(`/assets/${a.id}`)}>${a.name}</a></td>
              <td>${a.risk_score} <span class="visually-hidden">out of 100</span></td>
              <td class="hide-narrow">${a.type}</td>
            </tr>`)}
        </tbody>
      </table>
    </div>
  `;
}

/** Running scans with their progress, moved by scan.progress events as they arrive. */
function RunningScans() {
  const scans = useApi((signal) => api.get('/api/scans', { status: 'running', per_page: 20 }, signal), []);
  const [progress, setProgress] = useState(/** @type {Record<string, { progress: number, phase: string }>} */ ({}));
  useEvents(['scan.progress'], (event) => setProgress((p) => ({ ...p, [event.data.scan_id]: { progress: event.data.progress, phase: event.data.phase } })));
  useLiveReload(['scan.created', 'scan.completed', 'scan.failed', 'scan.progress'], scans.reload, 1000);
  if (scans.error) return html`<${ErrorBox} error=${scans.error} action="load the running scans" onRetry=${scans.reload} />`;
  if (!scans.data) return html`<${Loading} />`;
  if (!scans.data.data.length) return html`<p data-testid="no-running-scans">No scan is running.</p>`;
  return html`
    <ul class="plain-list" data-testid="running-scans">
      ${scans.data.data.map((s) => {
        const live = progress[s.scan_id];
        const pct = Math.max(s.progress, live?.progress ?? 0);
        return html`
          <li key=${s.scan_id}>
            <a href=${href(`/scans/${s.scan_id}`)}>${s.asset_name} · ${s.scan_type}</a>
            <div><progress max="100" value=${pct} aria-label=${`Progress of the ${s.scan_type} scan of ${s.asset_name}`}></progress> ${pct}% <small>${live?.phase ?? s.current_phase ?? ''}</small></div>
          </li>`;
      })}
    </ul>
  `;
}

/** Webhooks Rampart disabled as failing, and deliveries being retried now (the first webhooks only). */
function FailingDeliveries() {
  const failing = useApi(async (signal) => {
    const hooks = (await api.get('/api/webhooks', { per_page: 100 }, signal)).data;
    const checked = hooks.filter((w) => w.active).slice(0, WEBHOOKS_CHECKED);
    const counts = await Promise.all(checked.map((w) => api.get(`/api/webhooks/${w.id}/deliveries`, { status: 'retried', per_page: 1 }, signal)));
    return {
      disabled: hooks.filter((w) => w.disabled_reason === 'failing'),
      retrying: checked.map((w, i) => ({ webhook: w, count: counts[i].meta.total })).filter((r) => r.count > 0),
      unchecked: hooks.filter((w) => w.active).length - checked.length,
      total: hooks.length,
    };
  }, []);
  if (failing.error) return html`<${ErrorBox} error=${failing.error} action="load the webhook deliveries" onRetry=${failing.reload} />`;
  if (!failing.data) return html`<${Loading} />`;
  const d = failing.data;
  if (!d.total) return html`<p>No webhooks configured.</p>`;
  return html`
    ${!d.disabled.length && !d.retrying.length ? html`<p data-testid="no-failing-deliveries">No delivery is failing${d.unchecked > 0 ? ` on the first ${WEBHOOKS_CHECKED} active webhooks` : ''}.</p>` : null}
    <ul class="plain-list">
      ${d.disabled.map((w) => html`<li key=${w.id}><a href=${href(`/webhooks/${w.id}`)}>${w.name}</a>: disabled by Rampart after repeated failures</li>`)}
      ${d.retrying.map((r) => html`<li key=${r.webhook.id}><a href=${href(`/webhooks/${r.webhook.id}`)}>${r.webhook.name}</a>: ${r.count} ${r.count === 1 ? 'delivery' : 'deliveries'} failing, being retried</li>`)}
    </ul>
    ${d.unchecked > 0 ? html`<p class="hint">${d.unchecked} more active webhooks not checked here: see <a href=${href('/webhooks')}>Webhooks</a>.</p>` : null}
  `;
}

function WaitingApprovals() {
  const approvals = useApi((signal) => api.get('/api/approvals', { status: 'pending', per_page: 5 }, signal), []);
  useLiveReload(['action.triggered', 'action.completed', 'action.failed', 'playbook.started', 'playbook.completed', 'playbook.failed'], approvals.reload, 1500);
  if (approvals.error) return html`<${ErrorBox} error=${approvals.error} action="load the approvals" onRetry=${approvals.reload} />`;
  if (!approvals.data) return html`<${Loading} />`;
  const { data, meta } = approvals.data;
  if (!data.length) return html`<p>Nothing is waiting for an approval.</p>`;
  return html`
    <p>${meta.total} waiting.</p>
    <ul class="plain-list">
      ${data.map((a) => html`<li key=${a.id}><a href=${href(`/approvals/${a.id}`)}>${a.message || `${a.subject.kind.replace(/_/g, ' ')} ${a.subject.id}`}</a> <small>(${a.approvals_count} of ${a.required_approvals} approvals)</small></li>`)}
    </ul>
  `;
}

/** @param {import('../app/routes.js').PageProps} _props */
export default function Overview(_props) {
  return html`
    <h1 tabindex="-1">Overview</h1>
    <${Section} id="open-findings" title="Open findings by severity" scope="findings:read"><${OpenBySeverity} /><//>
    <${Section} id="status-trend" title="Findings by status and the 30-day trend" scope="findings:read"><${StatusAndTrend} /><//>
    <div class="grid-2">
      <${Section} id="riskiest" title="The ten riskiest assets" scope="assets:read"><${RiskiestAssets} /><//>
      <${Section} id="running" title="Scans running now" scope="scan:read"><${RunningScans} /><//>
      <${Section} id="deliveries" title="Deliveries failing now" scope="webhooks:manage"><${FailingDeliveries} /><//>
      <${Section} id="approvals" title="Approvals waiting" scope=${['actions:read', 'playbooks:read']}><${WaitingApprovals} /><//>
    </div>
  `;
}
