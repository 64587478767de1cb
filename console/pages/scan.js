// @ts-check
import { useEffect, useState } from 'preact/hooks';
import { liveStream, useEvents } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { Loading, NeedsScope, SeverityBadge, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';
import { SEVERITIES } from '../lib/vocabulary.js';

const ACTIVE = ['queued', 'running'];

/**
 * One scan, live: progress and phase from scan.progress events, findings as finding.new
 * events name this scan, the end from scan.completed / scan.failed. Without the stream
 * (no events:read) it polls the status instead. Cancel while it is queued or running.
 */
export default function Scan({ params }) {
  const id = params.id;
  const scan = useApi((signal) => api.get(`/api/scan/${encodeURIComponent(id)}`, {}, signal).then((r) => r.data), [id]);
  const results = useApi((signal) => (can('findings:read') ? api.get(`/api/scan/${encodeURIComponent(id)}/results`, { per_page: 100 }, signal) : Promise.resolve(null)), [id]);
  const [live, setLive] = useState(/** @type {{ progress: number, phase: string } | null} */ (null));
  const [arrived, setArrived] = useState(/** @type {any[]} */ ([]));
  const [cancel, setCancel] = useState(/** @type {{ busy: boolean, error: unknown }} */ ({ busy: false, error: null }));

  useEvents(['scan.progress', 'scan.completed', 'scan.failed', 'finding.new'], (event) => {
    if (event.kind === 'stream.resumed') {
      scan.reload({ quiet: true });
      results.reload({ quiet: true });
    } else if (event.data?.scan_id !== id) return;
    else if (event.kind === 'scan.progress') setLive({ progress: event.data.progress, phase: event.data.phase });
    else if (event.kind === 'finding.new') setArrived((a) => (a.some((f) => f.finding_id === event.data.finding_id) ? a : [event.data, ...a]));
    else {
      scan.reload({ quiet: true });
      results.reload({ quiet: true });
    }
  });

  const status = scan.data?.status;
  // Without the live stream, follow an active scan by polling its status (the API asks for at most once a second).
  useEffect(() => {
    if (!status || !ACTIVE.includes(status) || liveStream()) return undefined;
    const timer = setInterval(() => scan.reload({ quiet: true }), 2000);
    return () => clearInterval(timer);
  }, [status]);

  if (scan.error) return html`<h1 tabindex="-1">Scan</h1><${ErrorBox} error=${scan.error} action="load this scan" onRetry=${scan.reload} />`;
  if (!scan.data) return html`<h1 tabindex="-1">Scan</h1><${Loading} />`;
  const s = scan.data;
  const active = ACTIVE.includes(s.status);
  const progress = active ? Math.max(s.progress, live?.progress ?? 0) : s.progress;
  const phase = active ? live?.phase ?? s.current_phase : s.current_phase;
  const listed = new Set((results.data?.data ?? []).map((f) => f.id));
  const fresh = arrived.filter((f) => !listed.has(f.finding_id));

  const doCancel = async () => {
    setCancel({ busy: true, error: null });
    try {
      await api.post(`/api/scan/${s.scan_id}/cancel`);
      setCancel({ busy: false, error: null });
      scan.reload({ quiet: true });
    } catch (error) {
      setCancel({ busy: false, error });
      scan.reload({ quiet: true });
    }
  };

  return html`
    <p><a href=${href('/scans')}>← All scans</a></p>
    <h1 tabindex="-1">${s.scan_type} scan of ${s.asset_name}</h1>
    <section class="panel" aria-labelledby="progress-h">
      <h2 id="progress-h">Progress</h2>
      <p class="toolbar" data-testid="scan-status" data-status=${s.status}><${StatusBadge} status=${s.status} /> ${s.error ? html`<span>Error: <code>${s.error}</code></span>` : null}</p>
      <div role="status" aria-live="polite">
        <progress max="100" value=${progress} aria-label="Scan progress"></progress> <span data-testid="scan-progress">${progress}%</span>
        <p>Phase: <code data-testid="scan-phase">${phase ?? '—'}</code> · checks ${s.checks.done} of ${s.checks.total}${s.estimated_duration_minutes && active ? ` · estimated ${s.estimated_duration_minutes} min` : ''}</p>
      </div>
      ${active && (can('scan:write')
        ? html`<button type="button" class="danger" onClick=${doCancel} disabled=${cancel.busy}>${cancel.busy ? 'Cancelling…' : 'Cancel the scan'}</button>`
        : html`<p>Cancelling <${NeedsScope} scope="scan:write" />.</p>`)}
      ${cancel.error ? html`<${ErrorBox} error=${cancel.error} action="cancel the scan" />` : null}
      <dl class="facts">
        <dt>Asset</dt><dd><a href=${href(`/assets/${s.asset_id}`)}>${s.asset_name}</a></dd>
        <dt>Priority</dt><dd>${s.priority}</dd>
        <dt>Created</dt><dd><${Time} value=${s.created_at} /></dd>
        <dt>Started</dt><dd><${Time} value=${s.started_at} /></dd>
        <dt>Finished</dt><dd><${Time} value=${s.completed_at} />${s.duration_seconds !== null ? ` (${s.duration_seconds} s)` : ''}</dd>
        <dt>Options</dt><dd><code>${JSON.stringify(s.options)}</code></dd>
        ${s.schedule_id && html`<dt>Schedule</dt><dd><a href=${href('/schedules', { asset_id: s.asset_id })}>${s.schedule_id}</a></dd>`}
        <dt>Id</dt><dd><code>${s.scan_id}</code></dd>
      </dl>
    </section>
    <section class="panel" aria-labelledby="found-h">
      <h2 id="found-h">Findings (${Math.max(s.finding_count, listed.size + fresh.length)})</h2>
      <p class="toolbar">${SEVERITIES.map((sev) => html`<span key=${sev}><${SeverityBadge} severity=${sev} /> ${s.finding_summary[sev]}</span>`)}</p>
      ${!can('findings:read') ? html`<p>Listing them <${NeedsScope} scope="findings:read" />.</p>` : null}
      ${results.error ? html`<${ErrorBox} error=${results.error} action="load the scan's findings" onRetry=${results.reload} />` : null}
      <ul class="plain-list" data-testid="scan-findings" aria-live="polite">
        ${fresh.map((f) => html`<li key=${f.finding_id}><${SeverityBadge} severity=${f.severity} /> <a href=${href(`/findings/${f.finding_id}`)}>${f.title}</a> <small>new</small></li>`)}
        ${(results.data?.data ?? []).map((f) => html`<li key=${f.id}><${SeverityBadge} severity=${f.severity} /> <a href=${href(`/findings/${f.id}`)}>${f.title}</a> <small><${StatusBadge} status=${f.status} /></small></li>`)}
      </ul>
      ${results.data && results.data.meta.total > results.data.data.length ? html`<p><a href=${href('/findings', { scan_id: s.scan_id })}>All ${results.data.meta.total} findings of this scan</a></p>` : null}
      ${results.data && !results.data.data.length && !fresh.length ? html`<p>${active ? 'None yet.' : 'This scan found nothing.'}</p>` : null}
    </section>
  `;
}
