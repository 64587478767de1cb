import { X509Certificate } from 'node:crypto';
import type { CheckContext, ScanTarget } from '../../core/plugin-api/index.ts';
import { endpointOf, hostPort, type Endpoint } from '../_lib/endpoint.ts';
import { tlsHandshake, type HandshakeOptions, type HandshakeResult } from '../_lib/tls-handshake.ts';

/**
 * The TLS endpoint of a target, or null (logged) when the target is plain HTTP or out of
 * scope: a check that cannot look reports nothing rather than guessing.
 */
export function sslEndpoint(ctx: CheckContext, target: ScanTarget): Endpoint | null {
  const ep = endpointOf(target, true);
  if (!ep || !ep.tls) {
    ctx.log('INFO', `${target.name} is not a TLS endpoint; nothing to inspect`);
    return null;
  }
  if (!ctx.inScope(ep.host)) {
    ctx.log('WARN', `${ep.host} is outside the scan scope`);
    return null;
  }
  return ep;
}

/**
 * Handshake settings common to every probe of this endpoint (timeout, extra trust
 * anchors). The host is resolved once, through `ctx.resolve`: every probe connects to
 * that address (the name goes in SNI only), so no probe reaches what the name might
 * answer later.
 */
export async function baseHandshake(ctx: CheckContext, ep: Endpoint): Promise<HandshakeOptions> {
  const extra = typeof ctx.options.extra_ca_pem === 'string' && ctx.options.extra_ca_pem ? [ctx.options.extra_ca_pem] : undefined;
  const perProbe = Number(ctx.options.handshake_timeout_ms ?? 5_000);
  const [address] = await ctx.resolve(ep.host);
  return { host: address!, port: ep.port, servername: ep.servername, ca: extra, timeoutMs: Math.min(perProbe, ctx.timeoutMs), signal: ctx.signal };
}

export interface CertificateFacts {
  ep: Endpoint;
  location: string;
  handshake: HandshakeResult;
  leaf: X509Certificate;
  /** Certificates the server sent after the leaf (and what OpenSSL linked), without duplicates. */
  chain: X509Certificate[];
}

/** One default handshake and the parsed certificate chain; throws when there is no handshake. */
export async function certificateFacts(ctx: CheckContext, target: ScanTarget): Promise<CertificateFacts | null> {
  const ep = sslEndpoint(ctx, target);
  if (!ep) return null;
  const hs = await tlsHandshake(await baseHandshake(ctx, ep));
  if (!hs.ok) throw new Error(`TLS handshake with ${hostPort(ep)} failed: ${hs.error}`);
  if (!hs.certificate?.raw) throw new Error(`${hostPort(ep)} presented no certificate`);
  const leaf = new X509Certificate(hs.certificate.raw);
  const chain: X509Certificate[] = [];
  const seen = new Set([hs.certificate.fingerprint256]);
  let node = hs.certificate.issuerCertificate;
  while (node?.raw && !seen.has(node.fingerprint256)) {
    seen.add(node.fingerprint256);
    chain.push(new X509Certificate(node.raw));
    node = node.issuerCertificate;
  }
  return { ep, location: hostPort(ep), handshake: hs, leaf, chain };
}

/** The certificate fields every certificate finding carries as evidence. */
export function certificateEvidence(facts: CertificateFacts): Record<string, unknown> {
  const { leaf } = facts;
  return {
    host: facts.ep.host,
    port: facts.ep.port,
    subject: leaf.subject,
    issuer: leaf.issuer,
    subject_alt_name: leaf.subjectAltName ?? null,
    valid_from: new Date(leaf.validFrom).toISOString(),
    valid_to: new Date(leaf.validTo).toISOString(),
    fingerprint_sha256: leaf.fingerprint256,
  };
}

/** Is this certificate issued by itself (its own subject and key)? */
export function isSelfIssued(cert: X509Certificate): boolean {
  try {
    return cert.checkIssued(cert) && cert.verify(cert.publicKey);
  } catch {
    return false;
  }
}
