/**
 * The signature algorithm OID of a DER certificate. Node 20's X509Certificate does
 * not expose it, and scanners must not depend on dev-only libraries, so this reads the
 * three outer TLVs: Certificate SEQUENCE { tbsCertificate, signatureAlgorithm { OID } }.
 */
function readLength(buf: Buffer, at: number): { length: number; next: number } {
  const first = buf[at]!;
  if (first < 0x80) return { length: first, next: at + 1 };
  const n = first & 0x7f;
  let length = 0;
  for (let i = 0; i < n; i++) length = length * 256 + buf[at + 1 + i]!;
  return { length, next: at + 1 + n };
}

function decodeOid(bytes: Buffer): string {
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

export function signatureAlgorithmOid(der: Buffer): string | null {
  try {
    if (der[0] !== 0x30) return null;
    const outer = readLength(der, 1);
    if (der[outer.next] !== 0x30) return null;
    const tbs = readLength(der, outer.next + 1);
    const algAt = tbs.next + tbs.length;
    if (der[algAt] !== 0x30) return null;
    const alg = readLength(der, algAt + 1);
    if (der[alg.next] !== 0x06) return null;
    const oid = readLength(der, alg.next + 1);
    return decodeOid(der.subarray(oid.next, oid.next + oid.length));
  } catch {
    return null;
  }
}

/** Names of the signature algorithms the checks talk about. */
export const SIGNATURE_ALGORITHMS: Record<string, { name: string; weakHash: boolean }> = {
  '1.2.840.113549.1.1.4': { name: 'md5WithRSAEncryption', weakHash: true },
  '1.2.840.113549.1.1.5': { name: 'sha1WithRSAEncryption', weakHash: true },
  '1.2.840.10045.4.1': { name: 'ecdsa-with-SHA1', weakHash: true },
  '1.2.840.10040.4.3': { name: 'dsa-with-sha1', weakHash: true },
  '1.2.840.113549.1.1.11': { name: 'sha256WithRSAEncryption', weakHash: false },
  '1.2.840.113549.1.1.12': { name: 'sha384WithRSAEncryption', weakHash: false },
  '1.2.840.113549.1.1.13': { name: 'sha512WithRSAEncryption', weakHash: false },
  '1.2.840.113549.1.1.10': { name: 'RSASSA-PSS', weakHash: false },
  '1.2.840.10045.4.3.2': { name: 'ecdsa-with-SHA256', weakHash: false },
  '1.2.840.10045.4.3.3': { name: 'ecdsa-with-SHA384', weakHash: false },
  '1.2.840.10045.4.3.4': { name: 'ecdsa-with-SHA512', weakHash: false },
  '1.3.101.112': { name: 'Ed25519', weakHash: false },
};
