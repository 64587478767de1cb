// @ts-check
import { html } from '../lib/html.js';
import { StatusBadge } from './ui.js';

/**
 * The steps' links in words: where the flow goes after a step.
 * @param {any} step
 * @returns {Array<{ label: string, to: string | null }>}
 */
function exitsOf(step) {
  if (step.type === 'condition') return [{ label: 'if true', to: step.on_true ?? null }, { label: 'if false', to: step.on_false ?? null }];
  if (step.type === 'parallel') return [...(step.next_steps ?? []).map((/** @type {string} */ to) => ({ label: 'in parallel', to })), { label: 'then, once all are done', to: step.on_success ?? null }];
  return [{ label: 'on success', to: step.on_success ?? null }];
}

/**
 * A playbook's steps as a flow: an ordered list of step boxes (the order of the definition,
 * which is where a run starts), each naming where the flow goes next as links to the
 * target box. A list reads well with a screen reader and a keyboard, where a free-form
 * graph drawing would not; with a run's step states each box also shows its state in words.
 * @param {{ steps: any[], states?: Record<string, { status: string, error?: any }>, label: string }} props
 */
export function PlaybookFlow({ steps, states, label }) {
  const names = Object.fromEntries(steps.map((s) => [s.id, s.name ?? s.id]));
  return html`
    <ol class="flow" aria-label=${label} data-testid="playbook-flow">
      ${steps.map((step, i) => {
        const state = states?.[step.id];
        return html`
          <li class=${`flow-step flow-${step.type}${state ? ` state-${state.status}` : ''}`} id=${`step-${step.id}`} data-step=${step.id} data-state=${state?.status ?? ''}>
            <div class="flow-box">
              <span class="flow-kind">${i === 0 ? 'start · ' : ''}${step.type}</span>
              <strong>${step.name ?? step.id}</strong> <small><code>${step.id}</code></small>
              ${step.type === 'action' ? html`<span class="flow-detail">runs <code>${step.action_ref}</code></span>` : null}
              ${step.type === 'condition' ? html`<span class="flow-detail">if <code>${typeof step.if === 'string' ? step.if : JSON.stringify(step.if)}</code></span>` : null}
              ${state ? html`<span class="flow-state">state: <${StatusBadge} status=${state.status} />${state.error?.code ? html` <code>${state.error.code}</code>` : null}</span>` : null}
            </div>
            <ul class="flow-exits">${exitsOf(step).map((exit) => html`<li>${exit.label} → ${exit.to ? html`<a href=${`#step-${exit.to}`} onClick=${(/** @type {Event} */ e) => { e.preventDefault(); document.getElementById(`step-${exit.to}`)?.scrollIntoView(); }}>${names[exit.to] ?? exit.to}</a>` : html`<span>end</span>`}</li>`)}</ul>
          </li>`;
      })}
    </ol>
  `;
}
