import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { signatureAlgorithmOid, SIGNATURE_ALGORITHMS } from '../../_lib/der-signature.ts';
import { certificateEvidence, certificateFacts, isSelfIssued } from '../ssl-target.ts';

export const certSignature: ScannerCheck = {
  id: 'ssl:cert-signature',
  title: 'Certificate signed with SHA-1 or MD5',
  category: 'certificate',
  maxSeverity: 'medium',
  description: 'Reads the signature algorithm of the leaf and of the intermediates the server sends (self-signed roots excluded: their signature is not checked by clients).',
  async run(ctx, target) {
    const facts = await certificateFacts(ctx, target);
    if (!facts) return;
    const weak: Array<{ subject: string; algorithm: string }> = [];
    for (const cert of [facts.leaf, ...facts.chain.filter((c) => !isSelfIssued(c))]) {
      const oid = signatureAlgorithmOid(cert.raw);
      const alg = oid ? SIGNATURE_ALGORITHMS[oid] : undefined;
      if (alg?.weakHash) weak.push({ subject: cert.subject.replace(/\n/g, ', '), algorithm: alg.name });
    }
    if (!weak.length) return;
    ctx.report({
      title: `Certificate signed with a weak hash (${weak[0]!.algorithm})`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N',
      description: `${facts.location} presents certificates signed with collision-prone hashes: ${weak.map((w) => `${w.subject} (${w.algorithm})`).join('; ')}. SHA-1 chosen-prefix collisions are practical (SHAmbles).`,
      remediation: 'Re-issue the certificates with SHA-256 (or stronger) signatures.',
      evidence: { ...certificateEvidence(facts), weak_signatures: weak, response_indicator: weak.map((w) => w.algorithm).join(', ') },
      references: ['https://sha-mbles.github.io/'],
      tags: ['tls', 'certificate'],
      location: facts.location,
    });
  },
};
