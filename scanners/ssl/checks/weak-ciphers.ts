import type { ScannerCheck } from '../../../core/plugin-api.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { tlsHandshake } from '../../_lib/tls-handshake.ts';
import { runtimeCanOffer, WEAK_GROUPS } from '../cipher-capabilities.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

export const weakCiphers: ScannerCheck = {
  id: 'ssl:weak-ciphers',
  title: 'Weak cipher suites accepted',
  category: 'tls',
  maxSeverity: 'high',
  description: 'Offers only one weak family at a time (NULL, anonymous, EXPORT, RC4, 3DES) up to TLS 1.2 and reports the families the server accepts.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const base = baseHandshake(ctx, ep);
    const accepted: Array<{ group: (typeof WEAK_GROUPS)[number]; cipher: string; protocol: string | null }> = [];
    const notTestable: string[] = [];
    for (const group of WEAK_GROUPS) {
      if (!runtimeCanOffer(group.openssl)) {
        notTestable.push(group.name);
        continue;
      }
      // TLS 1.3 suites are all strong; the weak families only exist up to TLS 1.2.
      const hs = await tlsHandshake({ ...base, minVersion: 'TLSv1', maxVersion: 'TLSv1.2', ciphers: group.openssl });
      if (hs.ok) accepted.push({ group, cipher: hs.cipher.standardName || hs.cipher.name, protocol: hs.protocol });
    }
    if (notTestable.length) ctx.log('INFO', `not testable with this runtime's OpenSSL: ${notTestable.join(', ')}`);
    if (!accepted.length) return;
    const worst = accepted.reduce((a, b) => (b.group.rank > a.group.rank ? b : a));
    const names = accepted.map((a) => a.group.name);
    ctx.report({
      title: `Weak TLS cipher suites accepted: ${names.join(', ')}`,
      cvss_vector: worst.group.cvss,
      description: `${hostPort(ep)} completed handshakes when the client offered only ${accepted.map((a) => `${a.group.name} suites (${a.group.why})`).join('; ')}.`,
      remediation: 'Remove NULL, anonymous, EXPORT, RC4 and 3DES suites from the server cipher list; prefer AEAD suites (AES-GCM, ChaCha20-Poly1305) with ECDHE.',
      evidence: {
        host: ep.host,
        port: ep.port,
        accepted: accepted.map((a) => ({ family: a.group.name, cipher: a.cipher, protocol: a.protocol })),
        not_testable: notTestable,
        response_indicator: accepted.map((a) => `${a.cipher} (${a.protocol})`).join(', '),
      },
      references: ['https://www.rfc-editor.org/rfc/rfc7465', 'https://sweet32.info/'],
      tags: ['tls', 'cipher'],
      location: hostPort(ep),
    });
  },
};
