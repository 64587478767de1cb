/**
 * Why an outbound request did not get an HTTP answer. Callers record `code` (stable
 * snake_case) with the attempt; `message` is for humans and never holds secrets.
 * - `destination_refused`: the SSRF guard refused the address (private, loopback…).
 * - `invalid_url`, `https_required`: the URL itself is not acceptable.
 * - `dns_failed`, `connect_failed`, `tls_failed`: the peer could not be reached.
 * - `timeout`: no complete answer within the request's time limit.
 * - `aborted`: the caller's signal fired (shutdown).
 */
export type OutboundErrorCode =
  | 'destination_refused'
  | 'invalid_url'
  | 'https_required'
  | 'dns_failed'
  | 'connect_failed'
  | 'tls_failed'
  | 'timeout'
  | 'aborted'
  | 'request_failed';

export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string) {
    super(message);
    this.name = 'OutboundError';
    this.code = code;
  }
}

/** The refusal raised inside DNS lookup / connect, recognisable after undici wraps it. */
export class DestinationRefusedError extends OutboundError {
  constructor(host: string, address: string, range: string) {
    super('destination_refused', `Destination ${host} resolves to ${address} (${range}), which is not allowed.`);
  }
}

function causeChain(err: unknown): Array<Record<string, unknown>> {
  const chain: Array<Record<string, unknown>> = [];
  let e = err as Record<string, unknown> | undefined;
  for (let i = 0; e && i < 6; i++) {
    chain.push(e);
    e = e.cause as Record<string, unknown> | undefined;
  }
  return chain;
}

/** Maps whatever undici / node threw into an OutboundError. */
export function classifyOutboundError(err: unknown, timedOut: boolean): OutboundError {
  const chain = causeChain(err);
  const own = chain.find((e) => e instanceof OutboundError) as OutboundError | undefined;
  if (own) return own;
  if (timedOut) return new OutboundError('timeout', 'No complete answer within the time limit.');
  const codes = chain.flatMap((e) => [String(e.code ?? ''), String(e.name ?? '')]).filter(Boolean);
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  if (has('AbortError', 'ABORT_ERR')) return new OutboundError('aborted', 'The request was aborted.');
  if (has('UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT', 'TimeoutError')) {
    return new OutboundError('timeout', 'No complete answer within the time limit.');
  }
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL')) return new OutboundError('dns_failed', 'The host name could not be resolved.');
  if (codes.some((c) => c.startsWith('ERR_TLS') || c.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME_MISMATCH/.test(c))) {
    return new OutboundError('tls_failed', `TLS handshake failed (${codes.find((c) => c && c !== 'Error') ?? 'unknown'}).`);
  }
  if (has('ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_SOCKET', 'EPIPE')) {
    return new OutboundError('connect_failed', `The connection failed (${codes.find((c) => c.startsWith('E') || c.startsWith('UND')) ?? 'socket error'}).`);
  }
  return new OutboundError('request_failed', 'The request failed.');
}
