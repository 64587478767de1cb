import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { certificateEvidence, certificateFacts } from '../ssl-target.ts';

const DAY = 86_400_000;

export const certValidity: ScannerCheck = {
  id: 'ssl:cert-validity',
  title: 'Certificate expired, not yet valid or expiring soon',
  category: 'certificate',
  maxSeverity: 'medium',
  description: 'Compares the leaf certificate validity period with the current time (expiring = within `expiry_warning_days`, default 30).',
  async run(ctx, target) {
    const facts = await certificateFacts(ctx, target);
    if (!facts) return;
    const now = Date.now();
    const from = Date.parse(facts.leaf.validFrom);
    const to = Date.parse(facts.leaf.validTo);
    const warnDays = Number(ctx.options.expiry_warning_days ?? 30);
    const evidence = certificateEvidence(facts);
    const base = { evidence, tags: ['tls', 'certificate'], location: facts.location };
    if (to < now) {
      ctx.report({
        ...base,
        title: 'TLS certificate has expired',
        cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N',
        description: `The certificate of ${facts.location} expired on ${new Date(to).toISOString()}. Clients refuse it, and users who click through warnings can be intercepted.`,
        remediation: 'Renew the certificate and automate renewal (ACME).',
        evidence: { ...evidence, response_indicator: `notAfter ${facts.leaf.validTo}` },
      });
    } else if (from > now) {
      ctx.report({
        ...base,
        title: 'TLS certificate is not yet valid',
        cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N',
        description: `The certificate of ${facts.location} is valid only from ${new Date(from).toISOString()}; clients refuse it until then.`,
        remediation: 'Install a currently valid certificate and check the clock of the issuing system.',
        evidence: { ...evidence, response_indicator: `notBefore ${facts.leaf.validFrom}` },
      });
    } else if (to - now < warnDays * DAY) {
      const days = Math.floor((to - now) / DAY);
      ctx.report({
        ...base,
        title: `TLS certificate expires in ${days} days`,
        cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:L',
        description: `The certificate of ${facts.location} expires on ${new Date(to).toISOString()}, within ${warnDays} days.`,
        remediation: 'Renew the certificate before it expires and automate renewal (ACME).',
        evidence: { ...evidence, days_left: days, response_indicator: `notAfter ${facts.leaf.validTo}` },
      });
    }
  },
};
