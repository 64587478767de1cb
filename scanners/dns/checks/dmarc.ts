import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { domainOf, resolveOrEmpty, resolverFor } from '../dns-client.ts';

export const dmarc: ScannerCheck = {
  id: 'dns:dmarc',
  title: 'Missing DMARC record or p=none',
  category: 'email',
  maxSeverity: 'medium',
  description: 'Reads TXT at _dmarc.<domain>: missing, or a policy of none.',
  assetTypes: ['domain'],
  async run(ctx, target) {
    const domain = domainOf(ctx, target);
    if (!domain) return;
    const name = `_dmarc.${domain}`;
    const txt = await resolveOrEmpty((await resolverFor(ctx)).resolveTxt(name));
    const records = txt.map((p) => p.join('')).filter((t) => /^v=DMARC1\s*(;|$)/i.test(t));
    const policy = records.length === 1 ? /(?:^|;)\s*p\s*=\s*(\w+)/i.exec(records[0]!)?.[1]?.toLowerCase() : undefined;
    if (records.length === 1 && policy && policy !== 'none') return;
    const problem = !records.length ? 'no DMARC record' : records.length > 1 ? `${records.length} DMARC records (ignored by receivers)` : !policy ? 'no p= tag' : 'policy p=none (monitoring only)';
    ctx.report({
      title: records.length ? `Weak DMARC policy: ${problem}` : 'No DMARC record',
      cvss_vector: !records.length || records.length > 1 ? 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:L/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:N/I:L/A:N',
      description: `${name}: ${problem}. Receivers deliver mail that fails SPF/DKIM alignment, so the domain can be spoofed in phishing.`,
      remediation: 'Publish `v=DMARC1; p=quarantine; rua=mailto:…` (then p=reject once reports are clean).',
      evidence: { record_name: name, records, policy: policy ?? null, response_indicator: records.length ? records.join(' | ') : `no v=DMARC1 TXT record at ${name}` },
      references: ['https://www.rfc-editor.org/rfc/rfc7489'],
      tags: ['dns', 'email'],
      location: name,
    });
  },
};
