// @ts-check
import { useState } from 'preact/hooks';
import { html } from '../lib/html.js';

/**
 * A secret shown exactly once, with a copy button. The parent drops it (onDismiss) and it
 * is never fetched again: the API has no way to read a secret back.
 * @param {{ label: string, value: string, onDismiss: () => void }} props
 */
export function SecretOnce({ label, value, onDismiss }) {
  const [copied, setCopied] = useState(/** @type {string | null} */ (null));
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the text and copy it by hand.');
    }
  };
  return html`
    <div class="notice secret-once" role="status">
      <p><strong>${label}</strong> It is shown this once: store it where your receiver reads it. Rampart cannot show it again.</p>
      <p><code class="secret-value" data-testid="secret-once">${value}</code></p>
      <div class="toolbar">
        <button type="button" onClick=${() => void copy()}>Copy</button>
        <button type="button" class="secondary" onClick=${onDismiss}>I have stored it</button>
        ${copied ? html`<span aria-live="polite">${copied}</span>` : null}
      </div>
    </div>
  `;
}
