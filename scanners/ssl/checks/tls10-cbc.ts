import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { tlsHandshake } from '../../_lib/tls-handshake.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

/** Stream and AEAD suites are not CBC; everything else negotiable at TLS 1.0 is. */
function isCbc(standardName: string, name: string): boolean {
  return /_CBC_/.test(standardName) || (!/GCM|CHACHA|RC4|NULL/i.test(name) && /AES|CAMELLIA|DES|SEED|ARIA/i.test(name));
}

export const tls10Cbc: ScannerCheck = {
  id: 'ssl:tls10-cbc',
  title: 'CBC cipher suites with TLS 1.0 (BEAST)',
  category: 'tls',
  maxSeverity: 'low',
  description: 'Handshakes at TLS 1.0 and reports when the cipher the server chose is a CBC suite.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const hs = await tlsHandshake({ ...(await baseHandshake(ctx, ep)), minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'ALL' });
    if (!hs.ok) {
      ctx.log('INFO', `${hostPort(ep)} refuses TLS 1.0 (${hs.error})`);
      return;
    }
    if (!isCbc(hs.cipher.standardName ?? '', hs.cipher.name)) return;
    ctx.report({
      title: 'CBC cipher suite negotiated with TLS 1.0',
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N',
      description: `${hostPort(ep)} chose ${hs.cipher.standardName || hs.cipher.name} for a TLS 1.0 handshake. CBC in TLS 1.0 uses predictable IVs (BEAST); clients without the 1/n-1 split are exposed.`,
      remediation: 'Disable TLS 1.0 (preferred), or at least CBC suites for it.',
      evidence: { host: ep.host, port: ep.port, protocol: hs.protocol, cipher: hs.cipher.standardName || hs.cipher.name, response_indicator: `${hs.protocol} ${hs.cipher.name}` },
      references: ['https://www.rfc-editor.org/rfc/rfc8996'],
      tags: ['tls', 'cipher'],
      location: hostPort(ep),
    });
  },
};
