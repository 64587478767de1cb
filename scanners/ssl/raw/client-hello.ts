import { randomBytes } from 'node:crypto';
import { SSL3, TLS10, TLS12, TLS13 } from './tls-names.ts';

/** Curves offered to pre-1.3 servers so (EC)DHE suites stay negotiable: x25519, P-256, P-384, P-521, x448. */
export const CLASSIC_GROUPS = [0x001d, 0x0017, 0x0018, 0x0019, 0x001e];

/** ECDSA, RSA-PSS, RSA PKCS#1, EdDSA and the SHA-1 variants legacy certificates still need. */
const SIGNATURE_ALGORITHMS = [0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0807, 0x0808, 0x0201, 0x0203, 0x0402, 0x0202];

export interface ClientHelloOptions {
  /** Highest version offered (SSL3..TLS13). TLS 1.3 is offered only through supported_versions. */
  version: number;
  cipherSuites: readonly number[];
  /** SNI host name; omitted for IP literals (RFC 6066 forbids them). */
  serverName?: string;
  /** supported_groups; default CLASSIC_GROUPS. */
  groups?: readonly number[];
}

const u8 = (n: number) => Buffer.from([n & 0xff]);
const u16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);
const u24 = (n: number) => Buffer.from([(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
const vec16 = (body: Buffer) => Buffer.concat([u16(body.length), body]);
const list16 = (values: readonly number[]) => vec16(Buffer.concat(values.map(u16)));
const extension = (type: number, body: Buffer) => Buffer.concat([u16(type), vec16(body)]);

function isIpLiteral(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

function extensionsFor(o: ClientHelloOptions): Buffer[] {
  const exts: Buffer[] = [];
  if (o.serverName && !isIpLiteral(o.serverName)) {
    const name = Buffer.from(o.serverName, 'ascii');
    exts.push(extension(0x0000, vec16(Buffer.concat([u8(0), vec16(name)]))));
  }
  exts.push(extension(0x000a, list16(o.groups ?? CLASSIC_GROUPS)));
  exts.push(extension(0x000b, Buffer.from([1, 0]))); // ec_point_formats: uncompressed
  if (o.version >= TLS12) exts.push(extension(0x000d, list16(SIGNATURE_ALGORITHMS)));
  if (o.version >= TLS13) {
    exts.push(extension(0x002b, Buffer.concat([u8(2), u16(TLS13)]))); // supported_versions: TLS 1.3 only
    // key_share with an EMPTY client_shares list: a server that supports one of the offered
    // groups must answer HelloRetryRequest naming it, so no key has to be generated.
    exts.push(extension(0x0033, u16(0)));
    exts.push(extension(0x002d, Buffer.from([1, 1]))); // psk_key_exchange_modes: psk_dhe_ke
  }
  return exts;
}

/**
 * One TLS record holding a ClientHello. SSLv3 hellos carry no extensions (SSLv3 servers
 * predate them); TLS 1.3 is legacy_version 0x0303 plus supported_versions, as RFC 8446
 * requires. The record layer says TLS 1.0 (or SSLv3), the value middleboxes expect.
 */
export function buildClientHello(o: ClientHelloOptions): Buffer {
  const legacyVersion = Math.min(o.version, TLS12);
  const parts = [u16(legacyVersion), randomBytes(32), u8(0), list16(o.cipherSuites), Buffer.from([1, 0])];
  if (o.version > SSL3) parts.push(vec16(Buffer.concat(extensionsFor(o))));
  const body = Buffer.concat(parts);
  const handshake = Buffer.concat([u8(1), u24(body.length), body]);
  return Buffer.concat([u8(22), u16(o.version === SSL3 ? SSL3 : TLS10), u16(handshake.length), handshake]);
}

/** SSLv2 cipher kinds (3 bytes each), all of which are broken today. */
export const SSL2_CIPHER_KINDS: ReadonlyMap<number, string> = new Map([
  [0x010080, 'SSL_CK_RC4_128_WITH_MD5'],
  [0x020080, 'SSL_CK_RC4_128_EXPORT40_WITH_MD5'],
  [0x030080, 'SSL_CK_RC2_128_CBC_WITH_MD5'],
  [0x040080, 'SSL_CK_RC2_128_CBC_EXPORT40_WITH_MD5'],
  [0x050080, 'SSL_CK_IDEA_128_CBC_WITH_MD5'],
  [0x060040, 'SSL_CK_DES_64_CBC_WITH_MD5'],
  [0x0700c0, 'SSL_CK_DES_192_EDE3_CBC_WITH_MD5'],
]);

/**
 * An SSLv2 CLIENT-HELLO (2-byte record header, version 0x0002, 16-byte challenge). Only an
 * SSLv2 server answers it with a SERVER-HELLO; TLS servers refuse or hang up.
 */
export function buildSslv2ClientHello(): Buffer {
  const specs = Buffer.concat([...SSL2_CIPHER_KINDS.keys()].map((k) => Buffer.from([(k >> 16) & 0xff, (k >> 8) & 0xff, k & 0xff])));
  const challenge = randomBytes(16);
  const body = Buffer.concat([u8(1), u16(0x0002), u16(specs.length), u16(0), u16(challenge.length), specs, challenge]);
  return Buffer.concat([u16(0x8000 | body.length), body]);
}
