import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { tlsHandshake } from '../../_lib/tls-handshake.ts';
import { pqGroupsSupported } from '../raw/raw-probe.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

export const keyExchange: ScannerCheck = {
  id: 'ssl:key-exchange',
  title: 'Negotiated key exchange',
  category: 'tls',
  maxSeverity: 'medium',
  description: 'Reports the key exchange group the server negotiates (info), flags finite-field DH under 2048 bits (medium), and probes hybrid post-quantum groups (X25519MLKEM768 and others) with raw TLS 1.3 hellos.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const base = await baseHandshake(ctx, ep);
    const hs = await tlsHandshake(base);
    if (!hs.ok) throw new Error(`TLS handshake with ${hostPort(ep)} failed: ${hs.error}`);
    const eph = hs.ephemeral;
    // Node 20's OpenSSL cannot offer ML-KEM hybrids: a hand-built TLS 1.3 hello per group
    // (empty key_share) learns from the HelloRetryRequest whether the server would use it.
    const pq = await pqGroupsSupported(base);
    const pqOffered = pq.conclusive || pq.supported.length ? pq.supported : null;
    if (pqOffered === null) ctx.log('WARN', `post-quantum probe of ${hostPort(ep)} inconclusive: ${pq.probes.map((p) => `${p.group}: ${p.answer}`).join('; ')}`);
    const group = eph ? (eph.name ?? `${eph.type}`) : 'none (static RSA key exchange)';
    const evidence = {
      host: ep.host,
      port: ep.port,
      protocol: hs.protocol,
      cipher: hs.cipher.standardName || hs.cipher.name,
      key_exchange: eph ? { type: eph.type, name: eph.name ?? null, bits: eph.size ?? null } : null,
      post_quantum_offered: pqOffered,
      post_quantum_probes: pq.probes.map((p) => ({ group: p.group, answer: p.answer })),
    };
    const weakDh = eph?.type === 'DH' && (eph.size ?? 0) < 2048;
    ctx.report({
      title: weakDh ? `Weak Diffie-Hellman key exchange (${eph!.size} bits)` : `TLS key exchange: ${group}`,
      cvss_vector: weakDh ? 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:N',
      description: weakDh
        ? `${hostPort(ep)} negotiated finite-field DH with a ${eph!.size}-bit group (Logjam range).`
        : `${hostPort(ep)} negotiated ${group} with ${hs.protocol}. Hybrid post-quantum groups: ${pqOffered === null ? 'unknown (probe got no answer)' : pqOffered.length ? pqOffered.join(', ') : 'not offered'}.`,
      remediation: weakDh
        ? 'Use ECDHE (X25519, P-256) or DH groups of at least 2048 bits (RFC 7919 ffdhe2048+).'
        : pqOffered?.length
          ? 'None required.'
          : 'None required; consider offering X25519MLKEM768 (OpenSSL 3.5+, recent BoringSSL/GnuTLS) against harvest-now-decrypt-later.',
      evidence: { ...evidence, response_indicator: eph ? `${eph.type} ${eph.name ?? ''} ${eph.size ?? ''}`.trim() : 'no ephemeral key' },
      tags: ['tls', 'key-exchange'],
      location: hostPort(ep),
    });
  },
};
