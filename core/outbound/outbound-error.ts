/**
 * Why an outbound request did not get an HTTP answer. Callers record `code` (stable
 * snake_case) with the attempt; `message` is for humans and never holds secrets.
 * - `destination_refused`: the SSRF guard refused the address (private, loopback…).
 * - `invalid_url`, `https_required`: the URL itself is not acceptable.
 * - `dns_failed`, `connect_failed`, `tls_failed`: the peer could not be reached.
 * - `timeout`: no complete answer within the request's time limit (or no connection within the connect timeout).
 * - `aborted`: the caller's signal fired (shutdown).
 * - `invalid_header`: a header value is not HTTP header text; nothing was sent.
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
  | 'invalid_header'
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

/** Where the request went, so a failure can say so (host and port only: paths may carry tokens). */
export interface FailedTarget {
  host: string;
  port: number;
  timeoutMs: number;
  connectTimeoutMs: number;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** The most specific human message in the chain (the innermost cause that has one). */
function detail(chain: Array<Record<string, unknown>>): string {
  const messages = chain.map((e) => (typeof e.message === 'string' ? e.message.trim() : '')).filter(Boolean);
  return (messages.at(-1) ?? '').slice(0, 160);
}

/**
 * Maps whatever undici / node threw into an OutboundError whose message says in words
 * what failed and where (host and port, never the path), e.g. "Connection to
 * hooks.example.com:443 refused (ECONNREFUSED)". The code stays the stable key.
 */
export function classifyOutboundError(err: unknown, timedOut: boolean, target?: FailedTarget): OutboundError {
  const chain = causeChain(err);
  const own = chain.find((e) => e instanceof OutboundError) as OutboundError | undefined;
  if (own) return own;
  const where = target ? `${target.host}:${target.port}` : 'the server';
  if (timedOut) return new OutboundError('timeout', `No complete answer from ${where} within ${target ? seconds(target.timeoutMs) : 'the time limit'}.`);
  const codes = chain.flatMap((e) => [String(e.code ?? ''), String(e.name ?? '')]).filter(Boolean);
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  const code = (...prefixes: string[]) => codes.find((c) => prefixes.some((p) => c.startsWith(p))) ?? '';
  if (has('AbortError', 'ABORT_ERR')) return new OutboundError('aborted', 'The request was aborted.');
  if (has('UND_ERR_CONNECT_TIMEOUT')) {
    return new OutboundError('timeout', `Connecting to ${where} timed out${target ? ` after ${seconds(target.connectTimeoutMs)}` : ''} (UND_ERR_CONNECT_TIMEOUT).`);
  }
  if (has('UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'TimeoutError')) {
    return new OutboundError('timeout', `No complete answer from ${where} within ${target ? seconds(target.timeoutMs) : 'the time limit'} (${code('UND_ERR', 'ETIMEDOUT', 'Timeout')}).`);
  }
  if (has('ENOTFOUND', 'EAI_NONAME')) return new OutboundError('dns_failed', `DNS lookup of ${target?.host ?? 'the host'} failed: no such host (${code('ENOTFOUND', 'EAI_NONAME')}).`);
  if (has('EAI_AGAIN', 'EAI_FAIL')) {
    return new OutboundError('dns_failed', `DNS lookup of ${target?.host ?? 'the host'} failed: the resolver gave no answer (${code('EAI_AGAIN', 'EAI_FAIL')}).`);
  }
  const tls = codes.find((c) => c.startsWith('ERR_TLS') || c.startsWith('ERR_SSL') || /CERT|SELF_SIGNED|UNABLE_TO|HOSTNAME_MISMATCH/.test(c));
  if (tls) return new OutboundError('tls_failed', `TLS handshake with ${where} failed: ${detail(chain) || 'unknown reason'} (${tls}).`);
  if (has('ECONNREFUSED')) return new OutboundError('connect_failed', `Connection to ${where} refused (ECONNREFUSED): nothing accepts connections there.`);
  if (has('EHOSTUNREACH', 'ENETUNREACH')) return new OutboundError('connect_failed', `${where} is unreachable (${code('EHOSTUNREACH', 'ENETUNREACH')}).`);
  if (has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE')) {
    return new OutboundError('connect_failed', `The connection to ${where} was closed before a complete answer (${code('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE')}).`);
  }
  const header = chain.map((e) => (typeof e.message === 'string' ? /^invalid (\S+) header$/.exec(e.message) : null)).find(Boolean);
  if (has('UND_ERR_INVALID_ARG') && header) return new OutboundError('invalid_header', `Header ${header[1]} is not valid HTTP header text, so the request was not sent.`);
  const why = detail(chain);
  return new OutboundError('request_failed', `The request to ${where} failed${why ? `: ${why}` : ''}${codes[0] && codes[0] !== 'Error' ? ` (${codes[0]})` : ''}.`);
}
