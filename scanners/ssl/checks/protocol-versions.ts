import type { SecureVersion } from 'node:tls';
import type { ScannerCheck } from '../../../core/plugin-api.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { tlsHandshake } from '../../_lib/tls-handshake.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

const VERSIONS: SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];
const DEPRECATED = new Set(['TLSv1', 'TLSv1.1']);
/** Node 20's OpenSSL 3.0 has no SSLv2/SSLv3 client: these cannot be probed, so they are never claimed either way. */
export const NOT_TESTABLE = ['SSLv2', 'SSLv3'];

export const protocolVersions: ScannerCheck = {
  id: 'ssl:protocol-versions',
  title: 'Deprecated TLS protocol versions offered',
  category: 'tls',
  maxSeverity: 'medium',
  description: 'Handshakes once per TLS version (min = max version) and reports TLS 1.0/1.1 when accepted.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const base = baseHandshake(ctx, ep);
    const offered: string[] = [];
    const refused: Record<string, string> = {};
    for (const v of VERSIONS) {
      const hs = await tlsHandshake({ ...base, minVersion: v, maxVersion: v, ciphers: v === 'TLSv1.3' ? undefined : 'ALL' });
      if (hs.ok && hs.protocol === v) offered.push(v);
      else refused[v] = hs.ok ? `negotiated ${hs.protocol}` : hs.error;
    }
    ctx.log('INFO', `${hostPort(ep)} offers ${offered.join(', ') || 'no TLS version'}; ${NOT_TESTABLE.join('/')} not testable with this runtime`);
    const deprecated = offered.filter((v) => DEPRECATED.has(v));
    if (!deprecated.length) return;
    ctx.report({
      title: `Deprecated TLS versions offered: ${deprecated.join(', ')}`,
      cvss_vector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N',
      description: `${hostPort(ep)} completed handshakes restricted to ${deprecated.join(' and ')}. These versions use obsolete constructions (CBC with predictable IVs, MD5/SHA-1 PRF) and are deprecated by RFC 8996.`,
      remediation: 'Disable TLS 1.0 and TLS 1.1; offer TLS 1.2 and TLS 1.3 only.',
      evidence: {
        host: ep.host,
        port: ep.port,
        protocols_offered: offered,
        protocols_refused: refused,
        not_testable: NOT_TESTABLE,
        response_indicator: `handshake completed with ${deprecated.join(', ')}`,
      },
      references: ['https://www.rfc-editor.org/rfc/rfc8996'],
      tags: ['tls', 'protocol'],
      location: hostPort(ep),
    });
  },
};
