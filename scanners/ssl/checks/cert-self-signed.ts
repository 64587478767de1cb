import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { certificateEvidence, certificateFacts, isSelfIssued } from '../ssl-target.ts';

export const certSelfSigned: ScannerCheck = {
  id: 'ssl:cert-self-signed',
  title: 'Self-signed certificate',
  category: 'certificate',
  maxSeverity: 'medium',
  description: 'Reports a leaf certificate that is issued and signed by its own key.',
  async run(ctx, target) {
    const facts = await certificateFacts(ctx, target);
    if (!facts || !isSelfIssued(facts.leaf)) return;
    ctx.report({
      title: 'TLS certificate is self-signed',
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N',
      description: `${facts.location} presents a certificate signed by its own key (subject = issuer = ${facts.leaf.subject.replace(/\n/g, ', ')}). Clients cannot authenticate the server, so users learn to accept warnings.`,
      remediation: 'Use a certificate issued by a trusted CA (public, or your private CA distributed to clients).',
      evidence: { ...certificateEvidence(facts), response_indicator: 'issuer equals subject and the signature verifies with the certificate\'s own key' },
      tags: ['tls', 'certificate'],
      location: facts.location,
    });
  },
};
