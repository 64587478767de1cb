import { isIP } from 'node:net';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { certificateEvidence, certificateFacts } from '../ssl-target.ts';

export const certHostname: ScannerCheck = {
  id: 'ssl:cert-hostname',
  title: 'Certificate does not match the host name',
  category: 'certificate',
  maxSeverity: 'medium',
  description: 'Matches the scanned host name (or IP) against the certificate SAN (and CN when there is no SAN), as RFC 6125 clients do.',
  async run(ctx, target) {
    const facts = await certificateFacts(ctx, target);
    if (!facts) return;
    const host = facts.ep.host;
    const match = isIP(host) ? facts.leaf.checkIP(host) : facts.leaf.checkHost(host);
    if (match) return;
    ctx.report({
      title: `TLS certificate does not cover ${host}`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N',
      description: `The certificate of ${facts.location} is valid for ${facts.leaf.subjectAltName ?? facts.leaf.subject.replace(/\n/g, ', ')}, not for ${host}. Clients refuse the connection or users learn to ignore warnings.`,
      remediation: `Issue a certificate whose subjectAltName includes ${host}.`,
      evidence: { ...certificateEvidence(facts), requested_name: host, response_indicator: facts.leaf.subjectAltName ?? facts.leaf.subject },
      tags: ['tls', 'certificate'],
      location: facts.location,
    });
  },
};
