import { WEAK_SUITES, type CipherSuite } from './raw/cipher-suites.ts';
import { TLS10 } from './raw/client-hello.ts';

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
