import { createSecureContext } from 'node:tls';

/** A family of weak cipher suites and how bad accepting it is. */
export interface WeakCipherGroup {
  name: string;
  /** OpenSSL cipher string selecting the family. */
  openssl: string;
  why: string;
  cvss: string;
  rank: number;
}

export const WEAK_GROUPS: WeakCipherGroup[] = [
  { name: 'NULL', openssl: 'eNULL', why: 'no encryption at all', cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N', rank: 3 },
  { name: 'anonymous', openssl: 'aNULL', why: 'no server authentication (trivial man-in-the-middle)', cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N', rank: 3 },
  { name: 'EXPORT', openssl: 'EXPORT', why: '40/56-bit export-grade keys (FREAK/Logjam)', cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:N', rank: 3 },
  { name: 'RC4', openssl: 'RC4', why: 'biased keystream (RFC 7465 forbids RC4)', cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', rank: 2 },
  { name: '3DES', openssl: '3DES', why: '64-bit block cipher (SWEET32)', cvss: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N', rank: 2 },
];

const cache = new Map<string, boolean>();

/**
 * Can this runtime's OpenSSL offer the family at all? OpenSSL 3.0 as built into Node 20
 * has no EXPORT, RC4 or 3DES suites: those families are reported as not testable.
 */
export function runtimeCanOffer(openssl: string): boolean {
  let ok = cache.get(openssl);
  if (ok === undefined) {
    try {
      createSecureContext({ ciphers: `${openssl}:@SECLEVEL=0` });
      ok = true;
    } catch {
      ok = false;
    }
    cache.set(openssl, ok);
  }
  return ok;
}
