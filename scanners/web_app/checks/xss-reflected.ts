import type * as cheerio from 'cheerio';
import { loadHtml } from '../../_lib/html-document.ts';
import { isHtml } from '../page-keys.ts';
import { activeCheck, around, marker, type Probe, type Proof } from '../active/active-check.ts';
import { pointName } from '../active/injection-points.ts';

/**
 * Payloads with a fresh marker `m`: an element `<mx>` that exists in the parsed page only
 * if `<` reached the HTML unencoded (text or a quoted attribute broken out of), and an
 * attribute `ma`/`mb` that exists only if a quote broke out of an attribute value. The
 * page is parsed (not searched) so a reflection inside <textarea>, <title> or a comment,
 * where the browser does not make an element, is not reported.
 */
async function reflected(probe: Probe): Promise<Proof | null> {
  const m = marker();
  const tries: Array<{ payload: string; proves(doc: cheerio.CheerioAPI): boolean; technique: string }> = [
    { payload: `${m}"'><${m}x ${m}a=1>`, proves: ($) => $(`${m}x`).length > 0, technique: 'an unencoded element was injected into the page' },
    { payload: `${m}" ${m}a="1`, proves: ($) => $(`[${m}a]`).length > 0, technique: 'a double quote broke out of an attribute value' },
    { payload: `${m}' ${m}b='1`, proves: ($) => $(`[${m}b]`).length > 0, technique: 'a single quote broke out of an attribute value' },
  ];
  for (const t of tries) {
    const res = await probe.send(t.payload);
    if (!res) return null;
    const at = res.body.indexOf(m);
    // Not reflected in a normal answer: the other payloads would not be either. A refusal
    // (4xx/5xx, a filter on `<`) may still let the quote-only payloads through.
    if (at < 0 && res.status < 400) return null;
    if (at < 0) continue;
    if (!isHtml(res) || !t.proves(loadHtml(res.body))) continue;
    return { payload: t.payload, technique: t.technique, indicator: around(res.body, at) };
  }
  return null;
}

export const xssReflected = activeCheck({
  id: 'web_app:xss-reflected',
  title: 'Reflected cross-site scripting',
  maxSeverity: 'medium',
  description: 'Sends a unique marker with HTML metacharacters in each query parameter and form field and reports it when the parsed HTML answer contains the injected element or attribute (reflected unencoded in the page or an attribute).',
  test: reflected,
  finding: (point, proof) => ({
    title: `Reflected XSS in ${pointName(point)}`,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
    description: `${point.method} ${point.url} puts the value of \`${point.parameter}\` into its HTML page without encoding (${proof.technique}). A link carrying a script runs it in the site's origin for whoever opens it: session theft, actions in the victim's name.`,
    remediation: 'Encode output for its context (HTML text, attribute, URL, JavaScript) with the template engine\'s auto-escaping; add a Content-Security-Policy without unsafe-inline.',
    references: ['https://cwe.mitre.org/data/definitions/79.html', 'https://owasp.org/www-community/attacks/xss/'],
    tags: ['web', 'injection', 'xss', 'active'],
  }),
});
