import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { certificateEvidence, certificateFacts, isSelfIssued } from '../ssl-target.ts';

/** OpenSSL verification results that mean "no path to a trusted root". */
const TRUST_ERRORS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
]);

export const certUntrusted: ScannerCheck = {
  id: 'ssl:cert-untrusted',
  title: 'Certificate chain not trusted',
  category: 'certificate',
  maxSeverity: 'medium',
  description: 'Verifies the chain against Node\'s bundled roots plus the `extra_ca_pem` option; a self-signed leaf is left to ssl:cert-self-signed.',
  async run(ctx, target) {
    const facts = await certificateFacts(ctx, target);
    if (!facts) return;
    const code = facts.handshake.authorizationError;
    if (facts.handshake.authorized || !code) return;
    if (!TRUST_ERRORS.has(code)) {
      ctx.log('INFO', `chain verification stopped at ${code}; trust is judged only on path errors`);
      return;
    }
    if (isSelfIssued(facts.leaf)) return;
    ctx.report({
      title: 'TLS certificate chain is not trusted',
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:N',
      description: `The chain presented by ${facts.location} does not lead to a trusted root (${code}). Either the issuing CA is private or an intermediate is missing from the chain.`,
      remediation: 'Serve the full chain (leaf and intermediates) from a CA your clients trust; for a private CA, add it to the scanner with the `extra_ca_pem` option.',
      evidence: { ...certificateEvidence(facts), chain_length: facts.chain.length + 1, verify_error: code, response_indicator: code },
      tags: ['tls', 'certificate'],
      location: facts.location,
    });
  },
};
