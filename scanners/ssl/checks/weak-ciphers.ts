import type { ScannerCheck } from '../../../core/plugin-api/index.ts';
import { hostPort } from '../../_lib/endpoint.ts';
import { WEAK_SUITES, type CipherSuite } from '../raw/cipher-suites.ts';
import { acceptedSuites, describeOutcome, highestAcceptedVersion, type RawTarget, type VersionProbe } from '../raw/raw-probe.ts';
import { SSL3, TLS10, TLS11, TLS12, versionName } from '../raw/tls-names.ts';
import { baseHandshake, sslEndpoint } from '../ssl-target.ts';

/** A family of weak cipher suites and how bad accepting it is. */
export interface WeakCipherFamily {
  name: string;
  /** Selects the family's suites from WEAK_SUITES by IANA name (a suite may belong to several). */
  match: RegExp;
  why: string;
  cvss: string;
  rank: number;
  /** Highest version the family may be negotiated at (EXPORT suites are forbidden from TLS 1.1 on, RFC 4346). */
  maxVersion?: number;
}

const HIGH = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N';
const CONFIDENTIALITY = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N';

export const WEAK_FAMILIES: readonly WeakCipherFamily[] = [
  { name: 'NULL', match: /_WITH_NULL_/, why: 'no encryption at all', cvss: HIGH, rank: 3 },
  { name: 'anonymous', match: /_anon_/, why: 'no server authentication (trivial man-in-the-middle)', cvss: HIGH, rank: 3 },
  { name: 'EXPORT', match: /EXPORT/, why: '40/56-bit export-grade keys (FREAK/Logjam)', cvss: HIGH, rank: 3, maxVersion: TLS10 },
  { name: 'DES', match: /_DES_CBC_/, why: '56-bit single DES (brute-forceable)', cvss: CONFIDENTIALITY, rank: 2 },
  { name: 'RC4', match: /_RC4_/, why: 'biased keystream (RFC 7465 forbids RC4)', cvss: CONFIDENTIALITY, rank: 2 },
  { name: '3DES', match: /_3DES_/, why: '64-bit block cipher (SWEET32)', cvss: CONFIDENTIALITY, rank: 2 },
];

/** The suites of one family, in table order. */
export function suitesOf(family: WeakCipherFamily): CipherSuite[] {
  return WEAK_SUITES.filter((s) => family.match.test(s.name));
}

/** Versions the weak families exist at (TLS 1.3 suites are all AEAD), highest first. */
const LEGACY_VERSIONS = [TLS12, TLS11, TLS10, SSL3];

interface FamilyHit {
  family: WeakCipherFamily;
  protocol: string;
  suites: string[];
}

/** The version to probe a family at: the highest accepted one the family may use. */
function versionFor(family: WeakCipherFamily, accepted: number[]): number | null {
  return accepted.find((v) => v <= (family.maxVersion ?? TLS12)) ?? accepted[0] ?? null;
}

/** Which of the legacy versions the server accepts, without a probe per version when the top one answers. */
async function acceptedVersions(raw: RawTarget): Promise<{ accepted: number[]; probes: VersionProbe[] }> {
  const first = await highestAcceptedVersion(raw, LEGACY_VERSIONS);
  if (first.version === null) return { accepted: [], probes: first.probes };
  const accepted = [first.version];
  // EXPORT needs a version <= TLS 1.0; only look for one when the top version is newer.
  if (first.version > TLS10) {
    const lower = await highestAcceptedVersion(raw, LEGACY_VERSIONS.filter((v) => v <= TLS10));
    if (lower.version !== null) accepted.push(lower.version);
  }
  return { accepted, probes: first.probes };
}

export const weakCiphers: ScannerCheck = {
  id: 'ssl:weak-ciphers',
  title: 'Weak cipher suites accepted',
  category: 'tls',
  maxSeverity: 'high',
  description:
    'Hand-built ClientHellos offering one weak family at a time (NULL, anonymous, EXPORT, DES, RC4, 3DES) at the highest of TLS 1.2/1.1/1.0 (SSLv3 if nothing else) the server accepts; every accepted suite is listed by IANA name.',
  async run(ctx, target) {
    const ep = sslEndpoint(ctx, target);
    if (!ep) return;
    const raw = await baseHandshake(ctx, ep);
    const { accepted: versions, probes } = await acceptedVersions(raw);
    if (!versions.length) {
      const answers = probes.map((p) => `${versionName(p.version)}: ${describeOutcome(p.outcome)}`).join('; ');
      if (probes.every((p) => p.outcome.kind === 'timeout' || p.outcome.kind === 'error')) throw new Error(`${hostPort(ep)} did not answer: ${answers}`);
      ctx.log('INFO', `${hostPort(ep)} accepts none of SSLv3-TLS 1.2 (${answers}); weak suites only exist there`);
      return;
    }
    const hits: FamilyHit[] = [];
    const refusals: Record<string, string> = {};
    for (const family of WEAK_FAMILIES) {
      const version = versionFor(family, versions)!;
      const result = await acceptedSuites(raw, version, suitesOf(family));
      if (result.accepted.length) hits.push({ family, protocol: versionName(result.accepted[0]!.version), suites: result.accepted.map((s) => s.name) });
      else refusals[family.name] = `${versionName(version)}: ${describeOutcome(result.last)}`;
    }
    ctx.log('INFO', `${hostPort(ep)} weak families probed at ${versions.map(versionName).join('/')}: ${hits.length ? hits.map((h) => h.family.name).join(', ') : 'none'} accepted`);
    if (!hits.length) return;
    const worst = hits.reduce((a, b) => (b.family.rank > a.family.rank ? b : a));
    const names = hits.map((h) => h.family.name);
    ctx.report({
      title: `Weak TLS cipher suites accepted: ${names.join(', ')}`,
      cvss_vector: worst.family.cvss,
      description: `${hostPort(ep)} answered ServerHello choosing ${hits.map((h) => `${h.family.name} suites (${h.family.why})`).join('; ')} when the client offered only that family.`,
      remediation: 'Remove NULL, anonymous, EXPORT, DES, RC4 and 3DES suites from the server cipher list; prefer AEAD suites (AES-GCM, ChaCha20-Poly1305) with ECDHE.',
      evidence: {
        host: ep.host,
        port: ep.port,
        accepted: hits.map((h) => ({ family: h.family.name, protocol: h.protocol, suites: h.suites })),
        refused: refusals,
        response_indicator: hits.map((h) => `${h.protocol} ${h.suites.join(', ')}`).join('; '),
      },
      references: ['https://www.rfc-editor.org/rfc/rfc7465', 'https://sweet32.info/', 'https://weakdh.org/'],
      tags: ['tls', 'cipher'],
      location: hostPort(ep),
    });
  },
};
