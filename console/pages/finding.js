// @ts-check
import { useState } from 'preact/hooks';
import { useEvents } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { EnrichmentFacts, EpssFact, FindingSources, KevBadge } from '../components/finding-enrichment.js';
import { Loading, NeedsScope, SeverityBadge, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { explainCvss } from '../lib/cvss.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { FINDING_STATUSES, setFindingStatus } from '../lib/triage.js';
import { useApi } from '../lib/use-api.js';

const EVIDENCE = [['url', 'URL'], ['method', 'Method'], ['parameter', 'Parameter'], ['payload', 'Payload'], ['response_indicator', 'Response indicator']];

/** @param {{ vector: string, score: number }} props */
function CvssExplained({ vector, score }) {
  const { version, metrics, unknown } = explainCvss(vector);
  const groups = /** @type {const} */ (['base', 'temporal', 'environmental']);
  return html`
    <p>Vector <code>${vector}</code>${version ? ` (CVSS ${version})` : ''}, base score <strong>${score.toFixed(1)}</strong>.</p>
    ${groups.filter((g) => metrics.some((m) => m.group === g)).map((g) => html`
      <div class="table-wrap" tabindex="0" key=${g}>
        <table class="cvss-table">
          <caption>${g === 'base' ? 'Base metrics (what the score is computed from)' : g === 'temporal' ? 'Temporal metrics' : 'Environmental metrics'}</caption>
          <thead><tr><th scope="col">Metric</th><th scope="col">Value</th><th scope="col">What it means</th></tr></thead>
          <tbody>
            ${metrics.filter((m) => m.group === g).map((m) => html`
              <tr key=${m.code}><th scope="row">${m.metric} <code>${m.code}</code></th><td>${m.valueName} <code>${m.value}</code></td><td>${m.meaning}</td></tr>`)}
          </tbody>
        </table>
      </div>`)}
    ${unknown.length ? html`<p>Not recognised: <code>${unknown.join(' / ')}</code></p>` : null}
  `;
}

/**
 * The form is remounted with each new version of the finding (its `key`), so the outcome
 * notice is the page's (`notice`), not the form's: it must outlive the reload it causes.
 * @param {{ finding: any, notice: string | null, onChanged: (done: string | null) => void }} props
 */
function TriageForm({ finding, notice, onChanged }) {
  const [status, setStatus] = useState(finding.status);
  const [note, setNote] = useState('');
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown }} */ ({ busy: false, error: null }));
  if (!can('findings:write')) return html`<p>Changing the status <${NeedsScope} scope="findings:write" />.</p>`;
  const save = async () => {
    setState({ busy: true, error: null });
    onChanged(null);
    try {
      await setFindingStatus(finding.id, status, note);
      setNote('');
      setState({ busy: false, error: null });
      onChanged(note.trim() && status === finding.status ? 'Note added.' : `Status set to ${status.replace(/_/g, ' ')}.`);
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  return html`
    <form class="toolbar" aria-label="Triage" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void save(); }}>
      <label for="detail-status">Status</label>
      <select id="detail-status" value=${status} onChange=${(/** @type {any} */ e) => setStatus(e.currentTarget.value)}>
        ${FINDING_STATUSES.map((s) => html`<option value=${s}>${s.replace(/_/g, ' ')}</option>`)}
      </select>
      <label for="detail-note">Note</label>
      <input id="detail-note" class="wide" value=${note} placeholder="optional" onInput=${(/** @type {any} */ e) => setNote(e.currentTarget.value)} />
      <button type="submit" disabled=${state.busy || (status === finding.status && !note.trim())}>Save</button>
    </form>
    ${notice && html`<p class="notice" role="status">${notice}</p>`}
    ${state.error ? html`<${ErrorBox} error=${state.error} action="save the triage" />` : null}
  `;
}

/** One finding: KEV and EPSS, its sources and why they are one, evidence, references, the CVSS vector in words, triage, history and notes. */
export default function Finding({ params }) {
  const finding = useApi((signal) => api.get(`/api/findings/${encodeURIComponent(params.id)}`, {}, signal).then((r) => r.data), [params.id]);
  const [notice, setNotice] = useState(/** @type {string | null} */ (null));
  useEvents(['finding.status_changed'], (event) => {
    if (event.kind === 'stream.resumed' || event.data?.finding_id === params.id) finding.reload({ quiet: true });
  });
  if (finding.error) return html`<h1 tabindex="-1">Finding</h1><${ErrorBox} error=${finding.error} action="load this finding" onRetry=${finding.reload} />`;
  if (!finding.data) return html`<h1 tabindex="-1">Finding</h1><${Loading} />`;
  const f = finding.data;
  const evidence = EVIDENCE.filter(([k]) => f.evidence?.[k]);
  return html`
    <p><a href=${href('/findings')}>← All findings</a></p>
    <h1 tabindex="-1">${f.title}</h1>
    <p class="toolbar"><${SeverityBadge} severity=${f.severity} /> CVSS ${f.cvss.toFixed(1)} · <${StatusBadge} status=${f.status} /> · <${KevBadge} kev=${f.kev} /> · <${EpssFact} epss=${f.epss} /></p>
    <section class="panel" aria-labelledby="triage-h"><h2 id="triage-h">Triage</h2><${TriageForm} key=${f.updated_at} finding=${f} notice=${notice} onChanged=${(/** @type {string | null} */ done) => { setNotice(done); if (done) finding.reload({ quiet: true }); }} /></section>
    <section class="panel" aria-labelledby="facts-h">
      <h2 id="facts-h">Details</h2>
      <dl class="facts">
        <dt>Asset</dt><dd>${can('assets:read') ? html`<a href=${href(`/assets/${f.asset.id}`)}>${f.asset.name}</a>` : f.asset.name} (${f.asset.type})</dd>
        <dt>Found by</dt><dd>${f.scan_id ? (can('scan:read') ? html`<a href=${href(`/scans/${f.scan_id}`)}>scan ${f.scan_id}</a>` : f.scan_id) : 'imported, not from a scan'}</dd>
        <dt>Discovered</dt><dd><${Time} value=${f.discovered_at} /></dd>
        <dt>Last changed</dt><dd><${Time} value=${f.updated_at} /></dd>
        <${EnrichmentFacts} f=${f} />
        <dt>Tags</dt><dd>${f.tags.length ? f.tags.join(', ') : 'none'}</dd>
        <dt>Id</dt><dd><code>${f.id}</code></dd>
      </dl>
      ${f.description && html`<h3>Description</h3><p class="prose">${f.description}</p>`}
      ${f.remediation && html`<h3>Remediation</h3><p class="prose">${f.remediation}</p>`}
    </section>
    <section class="panel" aria-labelledby="sources-h"><h2 id="sources-h">Sources</h2><${FindingSources} f=${f} /></section>
    <section class="panel" aria-labelledby="evidence-h">
      <h2 id="evidence-h">Evidence</h2>
      ${evidence.length ? html`<dl class="facts">${evidence.map(([k, label]) => html`<dt>${label}</dt><dd><code class="prose">${f.evidence[k]}</code></dd>`)}</dl>` : html`<p>No evidence recorded.</p>`}
      <h3>References</h3>
      ${f.references.length ? html`<ul>${f.references.map((r) => html`<li><a href=${r} rel="noopener noreferrer" target="_blank">${r}</a></li>`)}</ul>` : html`<p>None.</p>`}
    </section>
    <section class="panel" aria-labelledby="cvss-h"><h2 id="cvss-h">CVSS, metric by metric</h2><${CvssExplained} vector=${f.cvss_vector} score=${f.cvss} /></section>
    <section class="panel" aria-labelledby="history-h">
      <h2 id="history-h">Status history</h2>
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">By</th><th scope="col">Note</th></tr></thead>
        <tbody>${f.status_history.map((h, i) => html`
          <tr key=${i}><td><${Time} value=${h.changed_at} /></td>
            <td>${h.old_status ? html`${h.old_status.replace(/_/g, ' ')} → ${h.new_status.replace(/_/g, ' ')}` : html`created as ${h.new_status.replace(/_/g, ' ')}`}</td>
            <td><code>${h.changed_by ?? 'system'}</code></td>
            <td>${h.note_id ? f.notes.find((n) => n.id === h.note_id)?.text ?? '' : ''}</td></tr>`)}
        </tbody>
      </table></div>
      <h3>Notes</h3>
      ${f.notes.length ? html`<ul class="plain-list" data-testid="notes">${f.notes.map((n) => html`<li key=${n.id}><p class="prose">${n.text}</p><small><code>${n.author}</code>, <${Time} value=${n.created_at} /></small></li>`)}</ul>` : html`<p>No notes.</p>`}
    </section>
  `;
}
