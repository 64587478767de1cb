import { webcrypto } from 'node:crypto';
import './reflect-metadata-shim.ts';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const DAY = 24 * 3600 * 1000;
type Keys = webcrypto.CryptoKeyPair;

export interface RsaLeafOptions {
  dnsNames?: string[];
  ips?: string[];
  /** Key size of the leaf (1024 to test weak keys). Default 2048. */
  bits?: number;
  /** Signature hash of the leaf. Default SHA-256. */
  hash?: 'SHA-1' | 'SHA-256';
  notBefore?: Date;
  notAfter?: Date;
  /** Sign the leaf with its own key (subject = issuer). */
  selfSigned?: boolean;
}

export interface IssuedPem {
  certPem: string;
  keyPem: string;
  /** Leaf then CA (for self-signed: the leaf alone). */
  chainPem: string;
}

export interface RsaTestCa {
  certPem: string;
  issue(options?: RsaLeafOptions): Promise<IssuedPem>;
}

function rsaAlg(hash: string, bits = 2048) {
  return { name: 'RSASSA-PKCS1-v1_5', hash, modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]) };
}

async function pkcs8Pem(key: webcrypto.CryptoKey): Promise<string> {
  const b64 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key)).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

async function withHash(key: webcrypto.CryptoKey, hash: string): Promise<webcrypto.CryptoKey> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash }, false, ['sign']);
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(12))).toString('hex').replace(/^[89a-f]/, '1');
}

/**
 * An RSA test CA whose leaves can carry each defect a TLS scanner looks for: weak
 * keys, SHA-1 signatures, past or future validity, wrong names, or no CA at all.
 * (test/_helpers/certificates/certs.ts stays the ECDSA default for everything else.)
 */
export async function createRsaTestCa(name = 'Rampart Scanner Test CA'): Promise<RsaTestCa> {
  const caKeys = (await webcrypto.subtle.generateKey(rsaAlg('SHA-256'), true, ['sign', 'verify'])) as Keys;
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: new Date(now - 10 * DAY),
    notAfter: new Date(now + 365 * DAY),
    keys: caKeys,
    signingAlgorithm: rsaAlg('SHA-256'),
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const certPem = ca.toString('pem');
  return {
    certPem,
    async issue(o = {}) {
      const hash = o.hash ?? 'SHA-256';
      const keys = (await webcrypto.subtle.generateKey(rsaAlg(hash, o.bits ?? 2048), true, ['sign', 'verify'])) as Keys;
      const dnsNames = o.dnsNames ?? ['localhost'];
      const ips = o.ips ?? ['127.0.0.1'];
      const subject = `CN=${dnsNames[0] ?? ips[0] ?? 'leaf'}`;
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject,
        issuer: o.selfSigned ? subject : ca.subject,
        notBefore: o.notBefore ?? new Date(now - DAY),
        notAfter: o.notAfter ?? new Date(now + 90 * DAY),
        publicKey: keys.publicKey,
        // A WebCrypto RSA key is bound to one hash: re-import the CA key to sign with another.
        signingKey: o.selfSigned ? keys.privateKey : hash === 'SHA-256' ? caKeys.privateKey : await withHash(caKeys.privateKey, hash),
        signingAlgorithm: rsaAlg(hash),
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
          new x509.SubjectAlternativeNameExtension([
            ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
            ...ips.map((value) => ({ type: 'ip' as const, value })),
          ]),
        ],
      });
      const leafPem = leaf.toString('pem');
      return { certPem: leafPem, keyPem: await pkcs8Pem(keys.privateKey), chainPem: o.selfSigned ? leafPem : `${leafPem}\n${certPem}` };
    },
  };
}
