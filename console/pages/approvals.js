// @ts-check
import { useState } from 'preact/hooks';
import { useLiveReload } from '../app/live.js';
import { ErrorBox } from '../components/error-box.js';
import { Loading, NeedsScope, Pager, StatusBadge, Time } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href, updateQuery } from '../lib/router.js';
import { can } from '../lib/session.js';
import { useAction } from '../lib/use-action.js';
import { useApi } from '../lib/use-api.js';

const STATUSES = ['pending', 'approved', 'denied', 'expired', 'cancelled', ''];

/** Where the subject of a request is shown. */
function subjectLink(/** @type {{ kind: string, id: string }} */ subject) {
  if (subject.kind === 'action_execution') return href(`/actions/executions/${subject.id}`);
  if (subject.kind === 'playbook_run') return href(`/playbooks/runs/${subject.id}`);
  return null;
}

/**
 * One request: what it is about, who asked, the decisions so far, and approve / deny with
 * a comment (the comment is part of the audit trail).
 * @param {{ item: any, onDecided: () => void }} props
 */
function ApprovalCard({ item, onDecided }) {
  const [comment, setComment] = useState('');
  const decide = useAction(async (/** @type {'approve' | 'deny'} */ decision) => {
    await api.post(`/api/approvals/${item.id}/${decision}`, comment.trim() ? { comment: comment.trim() } : {});
    setComment('');
    onDecided();
  });
  const link = subjectLink(item.subject);
  const canDecide = can('actions:execute') || can('playbooks:run');
  const cid = `apr-comment-${item.id}`;
  return html`
    <li class="panel approval" data-approval=${item.id}>
      <h2 class="approval-title">${item.message || 'Approval requested'} <${StatusBadge} status=${item.status} /></h2>
      <dl class="facts">
        <dt>For</dt><dd>${link ? html`<a href=${link}>${item.subject.kind.replace('_', ' ')} <code>${item.subject.id}</code></a>` : html`<code>${item.subject.id}</code>`}</dd>
        <dt>Approvals</dt><dd>${item.approvals_count} of ${item.required_approvals}</dd>
        <dt>Requested</dt><dd><${Time} value=${item.created_at} /> by ${item.requested_by.user_id ? html`user <code>${item.requested_by.user_id}</code>` : html`token <code>${item.requested_by.token_id}</code>`}</dd>
        <dt>Expires</dt><dd><${Time} value=${item.expires_at} /> (then: ${item.on_expiry})</dd>
      </dl>
      ${item.decisions.length ? html`<h3>Decisions</h3><ul>${item.decisions.map((/** @type {any} */ d) => html`<li><strong>${d.decision}</strong> <${Time} value=${d.decided_at} />${d.comment ? html`: <q>${d.comment}</q>` : null}</li>`)}</ul>` : null}
      ${item.status === 'pending'
        ? (canDecide
          ? html`<form aria-label=${`Decide ${item.id}`} onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void decide.run('approve'); }}>
              <label for=${cid}>Comment (kept with the decision)</label>
              <textarea id=${cid} rows="2" maxlength="2000" value=${comment} onInput=${(/** @type {any} */ e) => setComment(e.currentTarget.value)}></textarea>
              <div class="toolbar"><button type="submit" disabled=${decide.busy}>Approve</button><button type="button" class="danger" disabled=${decide.busy} onClick=${() => void decide.run('deny')}>Deny</button></div>
            </form>`
          : html`<p>Deciding <${NeedsScope} scope="actions:execute" /> or playbooks:run.</p>`)
        : null}
      <${ErrorBox} error=${decide.error} action="record the decision" />
    </li>`;
}

/** The approvals inbox: requests waiting for people (or decided ones, by status), live. */
export default function Approvals({ query }) {
  const status = query.status ?? 'pending';
  const page = query.page ?? '';
  const list = useApi((signal) => api.get('/api/approvals', { status, page }, signal), [status, page]);
  useLiveReload(['action.triggered', 'action.completed', 'action.failed', 'playbook.started', 'playbook.completed', 'playbook.failed'], list.reload);
  return html`
    <h1 tabindex="-1">Approvals</h1>
    <form class="filters" aria-label="Filter approvals" onSubmit=${(/** @type {Event} */ e) => e.preventDefault()}>
      <div><label for="apr-status">Status</label>
        <select id="apr-status" value=${status} onChange=${(/** @type {any} */ e) => updateQuery({ status: e.currentTarget.value, page: null })}>${STATUSES.map((s) => html`<option value=${s}>${s || 'any'}</option>`)}</select></div>
      <div><button type="button" class="secondary" onClick=${() => list.reload()}>Refresh</button></div>
    </form>
    <${ErrorBox} error=${list.error} action="load the approvals" onRetry=${list.reload} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && html`
      <ul class="plain-list approvals" data-testid="approvals">${list.data.data.map((/** @type {any} */ a) => html`<${ApprovalCard} key=${a.id} item=${a} onDecided=${() => list.reload({ quiet: true })} />`)}</ul>
      ${!list.data.data.length ? html`<p>${status === 'pending' ? 'Nothing waits for a decision.' : 'No requests.'}</p>` : null}
      <${Pager} meta=${list.data.meta} onPage=${(/** @type {number} */ p) => updateQuery({ page: p > 1 ? p : null })} label="Approval pages" />
    `}
  `;
}
