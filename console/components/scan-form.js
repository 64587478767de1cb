// @ts-check
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { navigate } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';
import { ErrorBox } from './error-box.js';

/** What each scan type does, in words. */
const TYPE_WORDS = {
  full: 'every check that applies to this asset',
  quick: 'only checks that can find critical or high issues',
  custom: 'the check categories you choose',
  web_app: 'web application checks',
  network: 'network discovery and ports',
  api: 'API discovery and checks',
  api_discovery: 'API discovery and checks',
  ssl: 'TLS and certificates',
  dns: 'DNS and e-mail records',
  port: 'open ports and services',
};

/**
 * The scan types and check categories the loaded scanners offer for an asset type
 * (GET /api/plugins), so the form offers only what the API will accept.
 * @param {string} assetType
 */
export function useScanCatalog(assetType) {
  return useApi(async (signal) => {
    const scanners = (await api.get('/api/plugins', { kind: 'scanner', per_page: 100 }, signal)).data.filter((p) => (p.asset_types ?? []).includes(assetType));
    const types = ['full', 'quick', 'custom', ...new Set(scanners.flatMap((p) => p.scan_types ?? []))];
    const categories = [...new Set(scanners.flatMap((p) => (p.checks ?? []).map((c) => c.category)))].sort();
    return { types, categories, scanners: scanners.map((p) => p.name) };
  }, [assetType]);
}

/**
 * Builds the `options` of a scan or schedule from the form's text fields; empty fields are left to the API's defaults.
 * @param {Record<string, string | boolean>} f
 */
export function scanOptionsOf(f) {
  /** @type {Record<string, unknown>} */
  const options = {};
  if (f.timeout) options.timeout = Number(f.timeout);
  if (f.max_depth) options.max_depth = Number(f.max_depth);
  if (f.ports) options.ports = String(f.ports).trim();
  if (f.resolvers) options.resolvers = String(f.resolvers).split(',').map((s) => s.trim()).filter(Boolean);
  if (f.depth) options.depth = f.depth;
  if (f.follow_redirects === false) options.follow_redirects = false;
  if (f.enable_bruteforce === true) options.enable_bruteforce = true;
  if (f.include_subdomains === true) options.include_subdomains = true;
  if (Array.isArray(f.categories) && f.categories.length) options.categories = f.categories;
  return options;
}

/**
 * The scan options as form fields (shared by "scan now" and the schedule form).
 * @param {{ idPrefix: string, form: Record<string, any>, setForm: (f: Record<string, any>) => void, categories: string[] }} props
 */
export function ScanOptionFields({ idPrefix, form, setForm, categories }) {
  const id = (/** @type {string} */ k) => `${idPrefix}-${k}`;
  const text = (/** @type {string} */ k) => (/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, [k]: v })); };
  const flag = (/** @type {string} */ k) => (/** @type {any} */ e) => { const v = e.currentTarget.checked; setForm((f) => ({ ...f, [k]: v })); };
  const chosen = new Set(form.categories ?? []);
  return html`
    ${form.scan_type === 'custom' && html`
      <fieldset><legend>Check categories (custom scan)</legend>
        ${categories.map((c) => html`<label class="inline" key=${c}><input type="checkbox" checked=${chosen.has(c)} onChange=${(/** @type {any} */ e) => { const on = e.currentTarget.checked; setForm((f) => { const next = new Set(f.categories ?? []); if (on) next.add(c); else next.delete(c); return { ...f, categories: [...next] }; }); }} /> ${c}</label>`)}
      </fieldset>`}
    <details>
      <summary>Options</summary>
      <div class="filters">
        <div><label for=${id('timeout')}>Time limit (seconds)</label><input id=${id('timeout')} type="number" min="1" class="narrow" placeholder="3600" value=${form.timeout ?? ''} onInput=${text('timeout')} /></div>
        <div><label for=${id('ports')}>Ports (port scanner)</label><input id=${id('ports')} placeholder="top, all, 22,80,8000-8100" value=${form.ports ?? ''} onInput=${text('ports')} /></div>
        <div><label for=${id('max_depth')}>Crawl depth (web)</label><input id=${id('max_depth')} type="number" min="0" max="100" class="narrow" placeholder="5" value=${form.max_depth ?? ''} onInput=${text('max_depth')} /></div>
        <div><label for=${id('resolvers')}>DNS resolvers (comma-separated)</label><input id=${id('resolvers')} placeholder="system" value=${form.resolvers ?? ''} onInput=${text('resolvers')} /></div>
        <div><label for=${id('depth')}>Depth</label><select id=${id('depth')} value=${form.depth ?? ''} onChange=${text('depth')}><option value="">default</option><option value="quick">quick</option><option value="standard">standard</option><option value="deep">deep</option></select></div>
      </div>
      <label class="inline"><input type="checkbox" checked=${form.follow_redirects !== false} onChange=${flag('follow_redirects')} /> Follow redirects</label>
      <label class="inline"><input type="checkbox" checked=${form.include_subdomains === true} onChange=${flag('include_subdomains')} /> Include subdomains</label>
      <label class="inline"><input type="checkbox" checked=${form.enable_bruteforce === true} onChange=${flag('enable_bruteforce')} /> Allow brute-force checks</label>
    </details>
  `;
}

/**
 * "Scan now": type, priority and options; on success, goes to the new scan's page.
 * @param {{ asset: { id: string, type: string } }} props
 */
export function ScanNow({ asset }) {
  const catalog = useScanCatalog(asset.type);
  const [form, setForm] = useState(/** @type {Record<string, any>} */ ({ scan_type: 'full', priority: 'normal' }));
  const [state, setState] = useState(/** @type {{ busy: boolean, error: unknown }} */ ({ busy: false, error: null }));
  const start = async () => {
    setState({ busy: true, error: null });
    try {
      const created = (await api.post('/api/scan/create', { asset_id: asset.id, scan_type: form.scan_type, priority: form.priority, options: scanOptionsOf(form) })).data;
      navigate(`/scans/${created.scan_id}`);
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  if (catalog.error) return html`<${ErrorBox} error=${catalog.error} action="load the scan types" onRetry=${catalog.reload} />`;
  const types = catalog.data?.types ?? ['full', 'quick'];
  return html`
    <form aria-label="Scan now" onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); void start(); }}>
      <div class="filters">
        <div><label for="scan-type">Scan type</label>
          <select id="scan-type" value=${form.scan_type} onChange=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, scan_type: v })); }}>
            ${types.map((t) => html`<option value=${t}>${t} — ${TYPE_WORDS[/** @type {keyof typeof TYPE_WORDS} */ (t)] ?? 'scanner-defined'}</option>`)}
          </select></div>
        <div><label for="scan-priority">Priority</label>
          <select id="scan-priority" value=${form.priority} onChange=${(/** @type {any} */ e) => { const v = e.currentTarget.value; setForm((f) => ({ ...f, priority: v })); }}>
            <option value="low">low</option><option value="normal">normal</option><option value="high">high</option>
          </select></div>
      </div>
      <${ScanOptionFields} idPrefix="scan" form=${form} setForm=${setForm} categories=${catalog.data?.categories ?? []} />
      <div class="toolbar"><button type="submit" disabled=${state.busy}>${state.busy ? 'Starting…' : 'Start the scan'}</button></div>
    </form>
    ${state.error ? html`<${ErrorBox} error=${state.error} action="start the scan" />` : null}
  `;
}
