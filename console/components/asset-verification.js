// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { ErrorBox } from './error-box.js';

const METHOD_NAMES = { dns_txt: 'DNS TXT record', meta_tag: 'HTML meta tag', file: 'File on the web server' };

/**
 * Ownership verification: issue (or show again) the asset's token with the instructions
 * of every method that applies, then "Check now" runs the real check and says what it found.
 * @param {{ asset: { id: string, type: string, verified: boolean }, onVerified: () => void }} props
 */
export function AssetVerification({ asset, onVerified }) {
  const [issued, setIssued] = useState(/** @type {any} */ (null));
  const [method, setMethod] = useState('');
  const [result, setResult] = useState(/** @type {any} */ (null));
  const [state, setState] = useState(/** @type {{ busy: string | null, error: unknown, action: string }} */ ({ busy: null, error: null, action: '' }));

  if (asset.type === 'network') return html`<p>Network ranges cannot be verified; scans of them follow the operator's scan policy.</p>`;

  const issue = async () => {
    setState({ busy: 'issue', error: null, action: '' });
    try {
      const data = (await api.post(`/api/assets/${asset.id}/verify`, {})).data;
      setIssued(data);
      setMethod(data.verification_method);
      setState({ busy: null, error: null, action: '' });
    } catch (error) {
      setState({ busy: null, error, action: 'get the verification token' });
    }
  };
  const check = async () => {
    setState({ busy: 'check', error: null, action: '' });
    setResult(null);
    try {
      const data = (await api.post(`/api/assets/${asset.id}/verify/check`, method ? { method } : {})).data;
      setResult(data);
      setState({ busy: null, error: null, action: '' });
      if (data.verified) onVerified();
    } catch (error) {
      setState({ busy: null, error, action: 'run the check' });
    }
  };

  return html`
    ${asset.verified ? html`<p class="notice">Ownership is verified. You can check again at any time.</p>` : html`<p>Prove this asset is yours: publish the token one of the ways below, then check.</p>`}
    ${!issued && html`<button type="button" onClick=${issue} disabled=${state.busy !== null}>Show the token and instructions</button>`}
    ${issued && html`
      <p>Token: <code data-testid="verification-token">${issued.verification_token}</code></p>
      <ol class="methods">
        ${issued.methods.map((m) => html`
          <li key=${m.method}><h3>${METHOD_NAMES[/** @type {keyof typeof METHOD_NAMES} */ (m.method)] ?? m.method} <code>${m.method}</code></h3>
            <p class="prose">${m.instructions}</p><p class="hint">Checked at: <code>${m.target}</code></p></li>`)}
      </ol>
      <form class="toolbar" aria-label="Check ownership" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void check(); }}>
        <label for="verify-method">Method to check</label>
        <select id="verify-method" value=${method} onChange=${(/** @type {any} */ e) => setMethod(e.currentTarget.value)}>
          ${issued.methods.map((m) => html`<option value=${m.method}>${METHOD_NAMES[/** @type {keyof typeof METHOD_NAMES} */ (m.method)] ?? m.method}</option>`)}
        </select>
        <button type="submit" disabled=${state.busy !== null}>${state.busy === 'check' ? 'Checking…' : 'Check now'}</button>
      </form>`}
    ${result && html`
      <div class=${result.verified ? 'notice' : 'error-box'} role="status" data-testid="verification-result">
        <p><strong>${result.verified ? 'Verified.' : 'Not verified.'}</strong> ${result.message}</p>
        <p>Checked <code>${result.checked}</code>${result.code ? html` · code <code>${result.code}</code>` : ''}</p>
        ${result.found.length ? html`<p>Found instead: ${result.found.map((f) => html`<code>${f}</code> `)}</p>` : null}
      </div>`}
    ${state.error ? html`<${ErrorBox} error=${state.error} action=${state.action} />` : null}
  `;
}
