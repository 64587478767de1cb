import type { SecureVersion } from 'node:tls';
import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { tlsHandshake } from '../../_lib/tls-handshake.ts';
import { acceptsVersion, describeOutcome, isAnswer } from '../raw/raw-probe.ts';
import { SSL2, SSL3 } from '../raw/tls-names.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

const TLS_VERSIONS: SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

/** Node 20's OpenSSL has no SSLv2/SSLv3 client: those two are probed with hand-built hellos. */
const RAW_VERSIONS = [
  { name: 'SSLv2', code: SSL2 },
  { name: 'SSLv3', code: SSL3 },
];

/** Worst first: the finding carries the vector of the worst version offered. */
const DEPRECATED: Record<string, { cvss: string; why: string; ref: string }> = {
  // DROWN (CVE-2016-0800): an SSLv2 endpoint lets an attacker decrypt TLS sessions sharing its RSA key.
  SSLv2: { cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', why: 'SSLv2 is broken by design (DROWN, export ciphers, no handshake integrity)', ref: 'https://www.rfc-editor.org/rfc/rfc6176' },
  // POODLE (CVE-2014-3566): a man-in-the-middle who also runs script in the victim's browser recovers cookies.
  SSLv3: { cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:H/I:N/A:N', why: 'SSLv3 CBC padding is not authenticated (POODLE) and its only stream cipher is RC4', ref: 'https://www.rfc-editor.org/rfc/rfc7568' },
  TLSv1: { cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N', why: 'TLS 1.0 uses CBC with predictable IVs and an MD5/SHA-1 PRF', ref: 'https://www.rfc-editor.org/rfc/rfc8996' },
  'TLSv1.1': { cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N', why: 'TLS 1.1 keeps the MD5/SHA-1 PRF and has no AEAD suites', ref: 'https://www.rfc-editor.org/rfc/rfc8996' },
};

export const protocolVersions: ScannerCheck = {
  id: 'ssl:protocol-versions',
  title: 'Deprecated TLS protocol versions offered',
  category: 'tls',
  maxSeverity: 'medium',
  description: 'Probes SSLv2 and SSLv3 with hand-built hellos and handshakes once per TLS version (min = max version); reports SSLv2, SSLv3, TLS 1.0 and TLS 1.1 when accepted.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const base = await baseHandshake(ctx, ep);
    const offered: string[] = [];
    const refused: Record<string, string> = {};
    let answered = false;
    for (const v of RAW_VERSIONS) {
      const probe = await acceptsVersion(base, v.code);
      answered ||= isAnswer(probe.outcome);
      if (probe.accepted) offered.push(v.name);
      else refused[v.name] = describeOutcome(probe.outcome);
    }
    for (const v of TLS_VERSIONS) {
      const hs = await tlsHandshake({ ...base, minVersion: v, maxVersion: v, ciphers: v === 'TLSv1.3' ? undefined : 'ALL' });
      if (hs.ok && hs.protocol === v) offered.push(v);
      else refused[v] = hs.ok ? `negotiated ${hs.protocol}` : hs.error;
      answered ||= hs.ok;
    }
    if (!answered && !offered.length) throw new Error(`${hostPort(ep)} did not answer any protocol probe: ${Object.values(refused)[0]}`);
    ctx.log('INFO', `${hostPort(ep)} offers ${offered.join(', ') || 'no SSL/TLS version'}`);
    const deprecated = Object.keys(DEPRECATED).filter((v) => offered.includes(v));
    if (!deprecated.length) return;
    const worst = DEPRECATED[deprecated[0]!]!;
    ctx.report({
      title: `Deprecated TLS versions offered: ${deprecated.join(', ')}`,
      cvss_vector: worst.cvss,
      description: `${hostPort(ep)} accepted ${deprecated.join(' and ')}. ${deprecated.map((v) => DEPRECATED[v]!.why).join('; ')}.`,
      remediation: 'Disable SSLv2, SSLv3, TLS 1.0 and TLS 1.1; offer TLS 1.2 and TLS 1.3 only.',
      evidence: {
        host: ep.host,
        port: ep.port,
        protocols_offered: offered,
        protocols_refused: refused,
        response_indicator: deprecated
          .map((v) => (v.startsWith('SSL') ? `${v} ${v === 'SSLv2' ? 'SERVER-HELLO' : 'ServerHello'} to a raw ${v} hello` : `handshake completed with ${v}`))
          .join(', '),
      },
      references: [...new Set(deprecated.map((v) => DEPRECATED[v]!.ref))],
      tags: ['tls', 'protocol'],
      location: hostPort(ep),
    });
  },
};
