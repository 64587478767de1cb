import { connect, rootCertificates, type DetailedPeerCertificate, type EphemeralKeyInfo, type SecureVersion } from 'node:tls';
import { addressOnly } from './address-only.mjs';

export interface HandshakeOptions {
  /** The address to connect to (the name, if any, goes in `servername`). */
  host: string;
  port: number;
  servername?: string;
  minVersion?: SecureVersion;
  maxVersion?: SecureVersion;
  /** OpenSSL cipher string; `@SECLEVEL=0` is appended so legacy suites can be offered. */
  ciphers?: string;
  /** Key exchange groups to offer (OpenSSL names, `:`-separated). */
  ecdhCurve?: string;
  /** Extra trust anchors (PEM) besides Node's bundled roots. */
  ca?: string[];
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface HandshakeResult {
  ok: true;
  protocol: string | null;
  cipher: { name: string; standardName: string; version: string };
  /** The leaf with `issuerCertificate` links (chain as sent, plus what OpenSSL resolved). */
  certificate: DetailedPeerCertificate | null;
  /** Chain verification against the trust store (hostname is checked separately). */
  authorized: boolean;
  authorizationError: string | null;
  ephemeral: EphemeralKeyInfo | null;
}

export interface HandshakeFailure {
  ok: false;
  error: string;
}

const DEFAULT_CIPHERS = 'ALL:@SECLEVEL=0';

/**
 * One TLS handshake with the given limits, reporting what was negotiated. It never
 * rejects on certificate problems (those are data for the checks); a refused or
 * failed handshake is `{ok:false}` with OpenSSL's reason.
 */
export function tlsHandshake(o: HandshakeOptions): Promise<HandshakeResult | HandshakeFailure> {
  return new Promise((resolve) => {
    if (o.signal?.aborted) return resolve({ ok: false, error: 'aborted' });
    addressOnly(o.host);
    const ciphers = o.ciphers ? (o.ciphers.includes('@SECLEVEL') ? o.ciphers : `${o.ciphers}:@SECLEVEL=0`) : DEFAULT_CIPHERS;
    let settled = false;
    const socket = connect({
      host: o.host,
      port: o.port,
      servername: o.servername,
      minVersion: o.minVersion ?? 'TLSv1',
      maxVersion: o.maxVersion ?? 'TLSv1.3',
      ciphers,
      ...(o.ecdhCurve ? { ecdhCurve: o.ecdhCurve } : {}),
      // Passing `ca` replaces Node's bundled roots; keep them so public chains still verify.
      ca: o.ca?.length ? [...o.ca, ...rootCertificates] : undefined,
      rejectUnauthorized: false,
      // Hostname is judged by the hostname check, not by the handshake.
      checkServerIdentity: () => undefined,
    });
    const finish = (r: HandshakeResult | HandshakeFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(r);
    };
    const onAbort = () => finish({ ok: false, error: 'aborted' });
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish({ ok: false, error: `handshake timed out after ${o.timeoutMs} ms` }), o.timeoutMs);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate(true);
      const cipher = socket.getCipher();
      finish({
        ok: true,
        protocol: socket.getProtocol(),
        cipher: { name: cipher.name, standardName: cipher.standardName, version: cipher.version },
        certificate: cert && Object.keys(cert).length ? cert : null,
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
        ephemeral: (socket.getEphemeralKeyInfo() as EphemeralKeyInfo | null) ?? null,
      });
    });
    socket.once('error', (err) => finish({ ok: false, error: err.message }));
  });
}

