// @ts-check
import { ErrorBox } from '../components/error-box.js';
import { Loading, SeverityBadge, StatusBadge } from '../components/ui.js';
import { api } from '../lib/api.js';
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { useApi } from '../lib/use-api.js';

/** @param {{ list: any[], label: string }} props */
function Neighbours({ list, label }) {
  if (list.length === 0) return html`<p>${label}: none listed.</p>`;
  return html`<p>${label}:</p><ul class="inline-list">${list.map((c) => html`<li key=${c.id}><a href=${href(`/components/${c.id}`)}>${c.name}${c.version ? ` ${c.version}` : ''}</a></li>`)}</ul>`;
}

/**
 * One component of an asset's inventory: what it is, its dependencies both ways, and the
 * findings that concern it (docs/inventory.md#findings-and-components). KEV says "not
 * loaded" while the API answers null (no catalog in force); EPSS null is "no score".
 * @param {import('../app/routes.js').PageProps} props
 */
export default function Component({ params }) {
  const c = useApi((signal) => api.get(`/api/components/${params.id}`, {}, signal), [params.id]);
  if (c.error) return html`<h1 tabindex="-1">Component</h1><${ErrorBox} error=${c.error} action="load the component" onRetry=${c.reload} />`;
  if (!c.data) return html`<${Loading} />`;
  const x = c.data.data;
  return html`
    <p><a href=${href(`/assets/${x.asset_id}`)}>← ${x.asset_name}</a></p>
    <h1 tabindex="-1">${x.group ? `${x.group}/` : ''}${x.name} ${x.version ?? ''}</h1>
    <dl class="facts">
      <dt>Package URL</dt><dd>${x.purl ? html`<code>${x.purl}</code>` : '—'}</dd>
      <dt>Licences</dt><dd>${x.licenses.join(', ') || '—'}</dd>
      <dt>Dependency</dt><dd>${x.direct ? 'direct' : 'indirect (or not said)'}</dd>
      <dt>Asset</dt><dd><a href=${href(`/assets/${x.asset_id}`)}>${x.asset_name}</a></dd>
    </dl>
    ${x.package ? html`<p><a href=${href('/components', { q: x.package })}>Where else do we run ${x.name}?</a></p>` : null}
    <section class="panel" aria-labelledby="findings-h">
      <h2 id="findings-h">Findings that concern it</h2>
      ${x.findings.length === 0
        ? html`<p>None: no finding on this asset names a CVE with this package in its evidence.</p>`
        : html`<div class="table-wrap" tabindex="0"><table>
            <caption class="visually-hidden">Findings</caption>
            <thead><tr><th scope="col">Severity</th><th scope="col">Finding</th><th scope="col">CVE</th><th scope="col">Status</th><th scope="col">Known exploited (KEV)</th><th scope="col">EPSS</th></tr></thead>
            <tbody>${x.findings.map((f) => html`<tr key=${f.id}>
              <td><${SeverityBadge} severity=${f.severity} /></td><td><a href=${href(`/findings/${f.id}`)}>${f.title}</a></td><td>${f.cve_ids.join(', ')}</td>
              <td><${StatusBadge} status=${f.status} /></td><td>${f.kev === null ? 'not loaded' : f.kev ? 'yes' : 'no'}</td><td>${f.epss === null ? 'no score' : f.epss.toFixed(3)}</td></tr>`)}</tbody>
          </table></div>
          <p class="hint">KEV and EPSS appear once Rampart loads those feeds (not yet).</p>`}
    </section>
    <section class="panel" aria-labelledby="deps-h">
      <h2 id="deps-h">Dependencies</h2>
      <${Neighbours} list=${x.depends_on} label="It depends on" />
      <${Neighbours} list=${x.depended_on_by} label="Depended on by" />
    </section>
  `;
}
