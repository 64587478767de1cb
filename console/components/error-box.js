// @ts-check
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';

/**
 * Seconds left until `retryAfter` has passed since `since`, ticking once a second.
 * @param {number | null} retryAfter
 * @param {number} since
 */
function useCountdown(retryAfter, since) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (retryAfter === null) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [retryAfter, since]);
  return retryAfter === null ? 0 : Math.max(0, Math.ceil((since + retryAfter * 1000 - now) / 1000));
}

/**
 * An API failure in words: what failed, the API's message and error code, the fields a
 * validation error names, and for 429/503 when to try again (a retry button that waits).
 * @param {{ error: unknown, action?: string, onRetry?: () => void }} props
 */
export function ErrorBox({ error, action, onRetry }) {
  const [since] = useState(Date.now());
  const apiError = error instanceof ApiError ? error : null;
  const left = useCountdown(apiError?.retryAfter ?? null, since);
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return html`
    <div class="error-box" role="alert">
      <p><strong>${action ? `Could not ${action}.` : 'Something went wrong.'}</strong> ${message}</p>
      ${apiError && html`<p class="error-code">Error code: <code>${apiError.code}</code>${apiError.status ? ` (HTTP ${apiError.status})` : ''}${apiError.requestId ? html` · request id <code>${apiError.requestId}</code>` : ''}</p>`}
      ${apiError?.details.length ? html`<ul class="error-details">${apiError.details.map((d) => html`<li>${d.field ? html`<code>${d.field}</code>: ` : ''}${d.message}</li>`)}</ul>` : null}
      ${apiError?.code === 'insufficient_scope' && Array.isArray(apiError.extra.required_scopes) ? html`<p>This needs the scope ${apiError.extra.required_scopes.join(', ')}; ask an administrator for a token that has it.</p>` : null}
      ${typeof apiError?.extra.scan_id === 'string' ? html`<p><a href=${href(`/scans/${apiError.extra.scan_id}`)}>Go to that scan</a></p>` : null}
      ${apiError?.retryAfter !== null && apiError?.retryAfter !== undefined
        ? html`<p class="retry-after" aria-live="polite">${left > 0 ? `Rate limited: you can try again in ${left} s.` : 'You can try again now.'}</p>`
        : null}
      ${onRetry && html`<button type="button" onClick=${onRetry} disabled=${left > 0}>Try again</button>`}
    </div>
  `;
}
