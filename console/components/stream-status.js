// @ts-check
import { useEffect, useState } from 'preact/hooks';
import { useStreamState } from '../app/live.js';
import { html } from '../lib/html.js';
import { can } from '../lib/session.js';

/** The live-update state in words: live, connecting, reconnecting (with a countdown), or off and why. */
export function StreamStatus() {
  const state = useStreamState();
  const [, tick] = useState(0);
  useEffect(() => {
    if (state?.status !== 'reconnecting') return undefined;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [state?.status]);
  let text;
  let kind;
  if (!state) {
    kind = 'off';
    text = can('events:read') ? 'Live updates off' : 'Live updates off (needs events:read)';
  } else if (state.status === 'live') {
    kind = 'live';
    text = 'Live';
  } else if (state.status === 'reconnecting') {
    kind = 'reconnecting';
    const left = state.retryAt ? Math.max(0, Math.ceil((state.retryAt - Date.now()) / 1000)) : 0;
    text = left > 0 ? `Reconnecting in ${left} s…` : 'Reconnecting…';
  } else if (state.status === 'connecting') {
    kind = 'reconnecting';
    text = 'Connecting…';
  } else {
    kind = 'off';
    text = state.error ? `Live updates stopped (${state.error.code})` : 'Live updates off';
  }
  return html`<span class=${`stream-status stream-${kind}`} role="status" aria-live="polite" data-stream=${state?.status ?? 'off'}><span class="dot" aria-hidden="true"></span>${text}</span>`;
}
