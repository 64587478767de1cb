import { webcrypto } from 'node:crypto';
import './reflect-metadata-shim.ts';
import * as x509 from '@peculiar/x509';

type WebCryptoKey = webcrypto.CryptoKey;
type WebCryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

export interface CertificateAuthority {
  /** PEM of the CA certificate: what a client puts in its trust list (`ca`). */
  certPem: string;
  keyPem: string;
  /** Issues a leaf certificate for the given names (DNS names and IP addresses). */
  issue(options?: LeafOptions): Promise<LeafCertificate>;
}

export interface LeafOptions {
  /** Subject alternative names: DNS names. Default `localhost`. */
  dnsNames?: string[];
  /** Subject alternative names: IP addresses. Default `127.0.0.1` and `::1`. */
  ips?: string[];
  commonName?: string;
  /** `server` (default), `client` or both, as extended key usages. */
  usages?: Array<'server' | 'client'>;
  notBefore?: Date;
  notAfter?: Date;
}

export interface LeafCertificate {
  certPem: string;
  keyPem: string;
  /** Leaf then CA, the chain a TLS server presents. */
  chainPem: string;
}

async function keyToPem(key: WebCryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(12))).toString('hex').replace(/^[89a-f]/, '1');
}

/**
 * A throwaway certificate authority (EC P-256) for tests: servers on loopback present
 * a leaf it issued, clients trust only `certPem`. Nothing touches the system store.
 */
export async function createCertificateAuthority(name = 'Rampart Test CA'): Promise<CertificateAuthority> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as WebCryptoKeyPair;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 30 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const certPem = ca.toString('pem');
  const keyPem = await keyToPem(keys.privateKey);
  return {
    certPem,
    keyPem,
    async issue(options = {}) {
      const leafKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as WebCryptoKeyPair;
      const dnsNames = options.dnsNames ?? ['localhost'];
      const ips = options.ips ?? ['127.0.0.1', '::1'];
      const usages = options.usages ?? ['server'];
      const eku = usages.map((u) => (u === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth));
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${options.commonName ?? dnsNames[0] ?? ips[0] ?? 'leaf'}`,
        issuer: ca.subject,
        notBefore: options.notBefore ?? new Date(now - DAY),
        notAfter: options.notAfter ?? new Date(now + 7 * DAY),
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: ALG,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
          new x509.ExtendedKeyUsageExtension(eku, false),
          new x509.SubjectAlternativeNameExtension([
            ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
            ...ips.map((value) => ({ type: 'ip' as const, value })),
          ]),
          await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
      const leafPem = leaf.toString('pem');
      return { certPem: leafPem, keyPem: await keyToPem(leafKeys.privateKey), chainPem: `${leafPem}\n${certPem}` };
    },
  };
}

let shared: Promise<{ ca: CertificateAuthority; server: LeafCertificate }> | null = null;

/** One CA and one localhost/127.0.0.1/::1 server certificate per test process (generation is cheap but not free). */
export function sharedTestCertificates(): Promise<{ ca: CertificateAuthority; server: LeafCertificate }> {
  shared ??= (async () => {
    const ca = await createCertificateAuthority();
    return { ca, server: await ca.issue() };
  })();
  return shared;
}
