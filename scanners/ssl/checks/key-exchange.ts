import { createSecureContext } from 'node:tls';
import type { ScannerCheck } from '../../../core/plugin-api.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { tlsHandshake } from '../../_lib/tls-handshake.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

/** Hybrid post-quantum groups (OpenSSL 3.5 names). */
const PQ_GROUPS = ['X25519MLKEM768', 'SecP256r1MLKEM768'];

/** The hybrid groups this runtime could offer; empty on Node 20 (OpenSSL 3.0 has no ML-KEM). */
export function runtimePqGroups(): string[] {
  return PQ_GROUPS.filter((g) => {
    try {
      createSecureContext({ ecdhCurve: g });
      return true;
    } catch {
      return false;
    }
  });
}

export const keyExchange: ScannerCheck = {
  id: 'ssl:key-exchange',
  title: 'Negotiated key exchange',
  category: 'tls',
  maxSeverity: 'medium',
  description: 'Reports the key exchange group the server negotiates (info), flags finite-field DH under 2048 bits (medium), and probes hybrid post-quantum groups when the runtime has them.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const base = baseHandshake(ctx, ep);
    const hs = await tlsHandshake(base);
    if (!hs.ok) throw new Error(`TLS handshake with ${hostPort(ep)} failed: ${hs.error}`);
    const eph = hs.ephemeral;
    const testable = runtimePqGroups();
    let pqOffered: string[] | null = null;
    if (testable.length) {
      pqOffered = [];
      for (const g of testable) {
        const probe = await tlsHandshake({ ...base, minVersion: 'TLSv1.3', ecdhCurve: g });
        if (probe.ok) pqOffered.push(g);
      }
    } else {
      ctx.log('INFO', `post-quantum groups not testable: this runtime's OpenSSL ${process.versions.openssl} has no ML-KEM hybrid groups`);
    }
    const group = eph ? (eph.name ?? `${eph.type}`) : 'none (static RSA key exchange)';
    const evidence = {
      host: ep.host,
      port: ep.port,
      protocol: hs.protocol,
      cipher: hs.cipher.standardName || hs.cipher.name,
      key_exchange: eph ? { type: eph.type, name: eph.name ?? null, bits: eph.size ?? null } : null,
      post_quantum_offered: pqOffered,
      post_quantum_testable: testable.length > 0,
    };
    const weakDh = eph?.type === 'DH' && (eph.size ?? 0) < 2048;
    ctx.report({
      title: weakDh ? `Weak Diffie-Hellman key exchange (${eph!.size} bits)` : `TLS key exchange: ${group}`,
      cvss_vector: weakDh ? 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N' : 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:N/A:N',
      description: weakDh
        ? `${hostPort(ep)} negotiated finite-field DH with a ${eph!.size}-bit group (Logjam range).`
        : `${hostPort(ep)} negotiated ${group} with ${hs.protocol}. Hybrid post-quantum groups: ${pqOffered === null ? 'not testable with this runtime' : pqOffered.length ? pqOffered.join(', ') : 'not offered'}.`,
      remediation: weakDh ? 'Use ECDHE (X25519, P-256) or DH groups of at least 2048 bits (RFC 7919 ffdhe2048+).' : 'None required; consider offering X25519MLKEM768 once your TLS stack supports it.',
      evidence: { ...evidence, response_indicator: eph ? `${eph.type} ${eph.name ?? ''} ${eph.size ?? ''}`.trim() : 'no ephemeral key' },
      tags: ['tls', 'key-exchange'],
      location: hostPort(ep),
    });
  },
};
