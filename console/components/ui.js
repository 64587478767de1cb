// @ts-check
import { html } from '../lib/html.js';

/**
 * Small pieces every page uses. Severity and status are always written out in words;
 * colour only repeats what the word says.
 */

/** @param {{ severity: string }} props */
export function SeverityBadge({ severity }) {
  return html`<span class="badge sev-${severity}">${severity}</span>`;
}

/** @param {{ status: string }} props */
export function StatusBadge({ status }) {
  return html`<span class="badge status status-${status}">${status.replace(/_/g, ' ')}</span>`;
}

/** @param {{ label?: string }} props */
export function Loading({ label = 'Loading…' }) {
  return html`<p class="loading" role="status">${label}</p>`;
}

/**
 * A control the token's scopes do not allow: disabled, with the reason next to it (not
 * only in a tooltip, which keyboard and touch users never see).
 * @param {{ scope: string }} props
 */
export function NeedsScope({ scope }) {
  return html`<span class="needs-scope">needs the <code>${scope}</code> scope</span>`;
}

/**
 * A timestamp as the user's local time, with the exact ISO value in a <time> element.
 * @param {{ value: string | null | undefined, empty?: string }} props
 */
export function Time({ value, empty = '—' }) {
  if (!value) return html`<span>${empty}</span>`;
  const date = new Date(value);
  return html`<time datetime=${value} title=${value}>${date.toLocaleString()}</time>`;
}

/**
 * Previous/next page links for a `{meta}` list answer.
 * @param {{ meta: { page: number, total_pages: number, total: number } | null, onPage: (page: number) => void, label?: string }} props
 */
export function Pager({ meta, onPage, label = 'Pages' }) {
  if (!meta) return null;
  return html`
    <nav class="pager" aria-label=${label}>
      <button type="button" onClick=${() => onPage(meta.page - 1)} disabled=${meta.page <= 1}>Previous page</button>
      <span>Page ${meta.page} of ${Math.max(1, meta.total_pages)} · ${meta.total} in all</span>
      <button type="button" onClick=${() => onPage(meta.page + 1)} disabled=${meta.page >= meta.total_pages}>Next page</button>
    </nav>
  `;
}
