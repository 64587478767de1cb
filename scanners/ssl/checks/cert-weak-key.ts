import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { certificateEvidence, certificateFacts } from '../ssl-target.ts';

/** Minimum sizes (bits) per key type, after NIST SP 800-57 / CA/B Forum. */
const MINIMUM: Record<string, number> = { rsa: 2048, 'rsa-pss': 2048, dsa: 2048, ec: 224 };

export const certWeakKey: ScannerCheck = {
  id: 'ssl:cert-weak-key',
  title: 'Weak certificate key',
  category: 'certificate',
  maxSeverity: 'medium',
  description: 'Reports an RSA/DSA public key under 2048 bits (EC under 224 bits) in the leaf certificate.',
  async run(ctx, target) {
    const facts = await certificateFacts(ctx, target);
    if (!facts) return;
    const key = facts.leaf.publicKey;
    const type = key.asymmetricKeyType ?? 'unknown';
    const details = key.asymmetricKeyDetails ?? {};
    const bits = details.modulusLength ?? (type === 'ec' ? Number(facts.handshake.certificate?.bits ?? 0) : 0);
    const min = MINIMUM[type];
    if (!min || !bits || bits >= min) return;
    ctx.report({
      title: `Weak ${type.toUpperCase()} certificate key (${bits} bits)`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N',
      description: `The certificate of ${facts.location} carries a ${bits}-bit ${type.toUpperCase()} key; at least ${min} bits are required. Short keys can be factored or broken by well-funded attackers.`,
      remediation: `Re-issue the certificate with an RSA key of at least 2048 bits or an ECDSA P-256 key.`,
      evidence: { ...certificateEvidence(facts), key_type: type, key_bits: bits, response_indicator: `${type} ${bits} bits` },
      tags: ['tls', 'certificate'],
      location: facts.location,
    });
  },
};
