import { connect } from 'node:net';
import { ServerFlightParser, type ServerFlight } from './server-flight.ts';
import { groupName, versionName } from './tls-names.ts';
import { suiteName } from './cipher-suites.ts';

/** Where and how long a raw probe may talk. */
export interface RawTarget {
  host: string;
  port: number;
  /** SNI name (undefined for IP literals). */
  servername?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The server's decision, or why there was none (closed without a word, timeout, socket error). */
export type ProbeOutcome =
  | ServerFlight
  | { kind: 'closed'; bytes: number }
  | { kind: 'timeout'; ms: number }
  | { kind: 'error'; message: string }
  | { kind: 'aborted' };

/**
 * Sends one hand-built hello and reads only the server's first flight (ServerHello,
 * HelloRetryRequest, Alert, or an SSLv2 answer), then hangs up: no key exchange, no
 * certificate check, no application data. The socket is destroyed on every path; socket
 * errors, timeouts and malformed answers are outcomes, never rejections.
 */
export function rawProbe(t: RawTarget, hello: Buffer, opts: { sslv2?: boolean } = {}): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    if (t.signal?.aborted) return resolve({ kind: 'aborted' });
    const parser = new ServerFlightParser(opts.sslv2 === true);
    let received = 0;
    let settled = false;
    const socket = connect({ host: t.host, port: t.port });
    const finish = (outcome: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      t.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    t.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish({ kind: 'timeout', ms: t.timeoutMs }), t.timeoutMs);
    socket.once('connect', () => socket.write(hello));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      const decided = parser.push(chunk);
      if (decided) finish(decided);
    });
    // A reset after the server said nothing is a refusal like a plain close.
    socket.once('end', () => finish({ kind: 'closed', bytes: received }));
    socket.once('close', () => finish({ kind: 'closed', bytes: received }));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' || err.code === 'EPIPE') finish({ kind: 'closed', bytes: received });
      else finish({ kind: 'error', message: err.message });
    });
  });
}

/** Did the probe reach a server that answered at all (a decision), as opposed to a transport failure? */
export function isAnswer(o: ProbeOutcome): boolean {
  return o.kind !== 'timeout' && o.kind !== 'error' && o.kind !== 'aborted';
}

/** One line for evidence and logs: `ServerHello TLSv1.2 TLS_RSA_WITH_RC4_128_SHA`, `alert handshake_failure`... */
export function describeOutcome(o: ProbeOutcome): string {
  switch (o.kind) {
    case 'server_hello':
      return `ServerHello ${versionName(o.version)} ${suiteName(o.cipherSuite)}${o.keyShareGroup !== null ? ` ${groupName(o.keyShareGroup)}` : ''}`;
    case 'hello_retry_request':
      return `HelloRetryRequest ${o.selectedGroup !== null ? groupName(o.selectedGroup) : 'without key_share'}`;
    case 'sslv2_server_hello':
      return `SSLv2 SERVER-HELLO (${o.cipherKinds.length} cipher kinds)`;
    case 'sslv2_error':
      return `SSLv2 ERROR ${o.code}`;
    case 'alert':
      return `alert ${o.name}`;
    case 'not_tls':
      return `not TLS: ${o.reason}`;
    case 'closed':
      return o.bytes ? `connection closed after ${o.bytes} incomplete bytes` : 'connection closed without an answer';
    case 'timeout':
      return `no answer within ${o.ms} ms`;
    case 'error':
      return `connection failed: ${o.message}`;
    case 'aborted':
      return 'aborted';
  }
}
