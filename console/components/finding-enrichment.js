// @ts-check
import { html } from '../lib/html.js';
import { href } from '../lib/router.js';
import { can } from '../lib/session.js';
import { Time } from './ui.js';

/** @param {number} n a fraction in [0, 1] */
export const percent = (n) => `${(n * 100).toFixed(n >= 0.1 ? 0 : 1)}%`;

/**
 * The KEV entry that speaks for a finding (docs/feeds.md, "On findings"): a badge with its
 * due date, and the ransomware flag when CISA has one.
 * @param {{ kev: any, short?: boolean }} props
 */
export function KevBadge({ kev, short = false }) {
  if (!kev) return short ? null : html`<span class="badge kev-none">not in KEV</span>`;
  const ransomware = kev.known_ransomware ? ', used in ransomware' : '';
  if (short) return html`<span class="badge kev" title=${`${kev.cve} in the KEV catalog, due ${kev.due_date}${ransomware}`}>KEV</span>`;
  return html`<span class="badge kev" data-testid="kev">KEV: ${kev.cve}, due ${kev.due_date}${ransomware}</span>`;
}

/** @param {{ epss: any }} props */
export function EpssFact({ epss }) {
  if (!epss) return html`<span data-testid="epss">no EPSS score</span>`;
  return html`<span data-testid="epss">EPSS ${percent(epss.score)} (${epss.cve}, percentile ${percent(epss.percentile)})</span>`;
}

/** The KEV and EPSS facts in full, for the finding's details. @param {{ f: any }} props */
export function EnrichmentFacts({ f }) {
  return html`
    <dt>KEV</dt><dd>${f.kev
      ? html`${f.kev.cve}: ${f.kev.vendor_project} ${f.kev.product}, added ${f.kev.date_added}, due ${f.kev.due_date}; ${f.kev.known_ransomware ? 'known to be used in ransomware campaigns' : 'no known ransomware use'}`
      : 'not in the KEV catalog'}</dd>
    <dt>EPSS</dt><dd>${f.epss ? html`${percent(f.epss.score)} chance of exploitation in 30 days, percentile ${percent(f.epss.percentile)} (${f.epss.cve}, feed of ${f.epss.feed_date.slice(0, 10)})` : 'no EPSS score'}</dd>
  `;
}

/** Rule keys and locations join their parts with control characters, shown as separators. @param {string} text */
const readable = (text) => text.replace(/[\u0000-\u001f]+/g, ' · ');

/** @param {{ keys: Array<{ kind: string, value: string }> | null }} props */
function Keys({ keys }) {
  if (!keys || !keys.length) return html`<span>—</span>`;
  return html`${keys.map((k, i) => html`${i ? ', ' : ''}<code key=${i}>${k.kind.replace(/_/g, ' ')} ${readable(k.value)}</code>`)}`;
}

/** A source's scan or import, in words (`scan:<id>`, `import:<time>`, `import`). @param {{ origin: string }} props */
function Origin({ origin }) {
  const [kind, ...rest] = origin.split(':');
  const value = rest.join(':');
  if (kind === 'scan' && value) return can('scan:read') ? html`<a href=${href(`/scans/${value}`)}>scan ${value}</a>` : html`scan <code>${value}</code>`;
  if (kind === 'import' && value) return html`import of <${Time} value=${value} />`;
  return html`${origin}`;
}

/** Each tool rule that reported the finding, and why they are one (docs/finding-fingerprints.md). @param {{ f: any }} props */
export function FindingSources({ f }) {
  const { keys, matched, merges } = f.dedup;
  return html`
    <div class="table-wrap" tabindex="0"><table data-testid="sources">
      <caption class="visually-hidden">Sources of this finding</caption>
      <thead><tr><th scope="col">Tool / rule</th><th scope="col">Scan or import</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Joined on</th></tr></thead>
      <tbody>${f.sources.map((s, i) => html`
        <tr key=${i}>
          <td>${s.tool || 'rampart'} <code>${s.rule_id}</code>${s.location ? html`<br /><small>${readable(s.location)}</small>` : null}</td>
          <td><${Origin} origin=${s.first_origin} />${s.last_origin !== s.first_origin ? html`<br /><small>last: <${Origin} origin=${s.last_origin} /></small>` : null}</td>
          <td><${Time} value=${s.first_seen} /></td>
          <td><${Time} value=${s.last_seen} /></td>
          <td>${s.matched_on ? html`<${Keys} keys=${s.matched_on} />` : 'created the finding'}</td>
        </tr>`)}
      </tbody>
    </table></div>
    <p data-testid="dedup">Why these are one finding: ${matched.length
      ? html`they share <${Keys} keys=${matched} />.`
      : merges.some((/** @type {any} */ m) => !m.split_at) ? 'merged by hand (below).' : 'one rule reported it.'} Fingerprint: <${Keys} keys=${keys} />.</p>
    ${merges.length ? html`
      <h3>Merged by hand</h3>
      <ul data-testid="merges">${merges.map((m) => html`
        <li key=${m.finding_id + m.merged_at}><code>${m.finding_id}</code> merged by <code>${m.merged_by}</code>, <${Time} value=${m.merged_at} />${m.split_at ? html`; split by <code>${m.split_by}</code>, <${Time} value=${m.split_at} />` : null}</li>`)}
      </ul>` : null}
  `;
}
