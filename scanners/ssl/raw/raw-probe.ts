import { connect } from 'node:net';
import { addressOnly } from '../../_lib/address-only.mjs';
import { broadSuites, suiteName, TLS13_SUITES, type CipherSuite } from './cipher-suites.ts';
import { buildClientHello, buildSslv2ClientHello } from './client-hello.ts';
import { ServerFlightParser, type ServerFlight } from './server-flight.ts';
import { groupName, PQ_GROUPS, SSL2, TLS13, versionName } from './tls-names.ts';

/** Where and how long a raw probe may talk. */
export interface RawTarget {
  /** The address to connect to (the name, if any, goes in `servername`). */
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
    addressOnly(t.host);
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

export interface VersionProbe {
  version: number;
  accepted: boolean;
  outcome: ProbeOutcome;
}

/**
 * Does the server complete the first step of a handshake at exactly this version? The
 * client offers every suite it knows for the version (so the answer is about the version,
 * not a cipher); accepted means a ServerHello (or TLS 1.3 HelloRetryRequest) naming that
 * version, or an SSLv2 SERVER-HELLO. A server answering with another version refused it.
 */
export async function acceptsVersion(t: RawTarget, version: number): Promise<VersionProbe> {
  if (version === SSL2) {
    const outcome = await rawProbe(t, buildSslv2ClientHello(), { sslv2: true });
    return { version, accepted: outcome.kind === 'sslv2_server_hello', outcome };
  }
  const suites = (version >= TLS13 ? TLS13_SUITES : broadSuites(version)).map((s) => s.id);
  const outcome = await rawProbe(t, buildClientHello({ version, cipherSuites: suites, serverName: t.servername }));
  const accepted = (outcome.kind === 'server_hello' || outcome.kind === 'hello_retry_request') && outcome.version === version;
  return { version, accepted, outcome };
}

/** The highest of the given versions the server accepts (tried highest first), or null with what each probe saw. */
export async function highestAcceptedVersion(t: RawTarget, versions: readonly number[]): Promise<{ version: number | null; probes: VersionProbe[] }> {
  const probes: VersionProbe[] = [];
  for (const v of [...versions].sort((a, b) => b - a)) {
    const p = await acceptsVersion(t, v);
    probes.push(p);
    if (p.accepted) return { version: v, probes };
    if (!isAnswer(p.outcome)) break; // unreachable: do not spend a timeout per version
  }
  return { version: null, probes };
}

export interface AcceptedSuite extends CipherSuite {
  /** The version the ServerHello named (normally the offered one). */
  version: number;
}

export interface SuiteEnumeration {
  accepted: AcceptedSuite[];
  /** The answer that ended the enumeration (a refusal when some suites were accepted). */
  last: ProbeOutcome;
}

/**
 * Every suite of `suites` the server accepts at `version`, enumerated like sslscan: offer
 * the remaining suites, note the one the server picks, offer the rest again, until the
 * server refuses or picks nothing new. One connection per accepted suite plus one.
 */
export async function acceptedSuites(t: RawTarget, version: number, suites: readonly CipherSuite[]): Promise<SuiteEnumeration> {
  const remaining = new Map(suites.map((s) => [s.id, s]));
  const accepted: AcceptedSuite[] = [];
  let last: ProbeOutcome = { kind: 'closed', bytes: 0 };
  while (remaining.size && !t.signal?.aborted) {
    last = await rawProbe(t, buildClientHello({ version, cipherSuites: [...remaining.keys()], serverName: t.servername }));
    if (last.kind !== 'server_hello') break;
    const chosen = remaining.get(last.cipherSuite);
    // A suite that was not offered is a broken server, not an accepted suite.
    if (!chosen) break;
    accepted.push({ ...chosen, version: last.version });
    remaining.delete(chosen.id);
  }
  return { accepted, last };
}

export interface PqGroupProbe {
  group: string;
  id: number;
  supported: boolean;
  /** What the server answered, in words (`HelloRetryRequest X25519MLKEM768`, `alert handshake_failure`...). */
  answer: string;
}

export interface PqGroupsResult {
  /** Names of the hybrid groups the server selected when offered alone. */
  supported: string[];
  probes: PqGroupProbe[];
  /** False when a probe got no answer at all (timeout, refused connection): then "not supported" is unknown. */
  conclusive: boolean;
}

/**
 * Which hybrid post-quantum groups the server supports, one TLS 1.3 ClientHello per group:
 * supported_groups names only that group and key_share is empty, so a server that
 * supports it must answer HelloRetryRequest selecting it (RFC 8446 4.1.4), and one that
 * does not has no group to choose and refuses. No ML-KEM arithmetic is needed on our side.
 */
export async function pqGroupsSupported(t: RawTarget): Promise<PqGroupsResult> {
  const probes: PqGroupProbe[] = [];
  let conclusive = true;
  for (const g of PQ_GROUPS) {
    if (t.signal?.aborted) {
      conclusive = false;
      break;
    }
    const outcome = await rawProbe(t, buildClientHello({ version: TLS13, cipherSuites: TLS13_SUITES.map((s) => s.id), serverName: t.servername, groups: [g.id] }));
    if (!isAnswer(outcome)) conclusive = false;
    const supported = outcome.kind === 'hello_retry_request' && outcome.selectedGroup === g.id;
    probes.push({ group: g.name, id: g.id, supported, answer: describeOutcome(outcome) });
    if (!isAnswer(outcome)) break; // an unreachable server would cost one timeout per group
  }
  return { supported: probes.filter((p) => p.supported).map((p) => p.group), probes, conclusive };
}
