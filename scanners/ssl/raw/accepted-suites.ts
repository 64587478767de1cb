import { broadSuites, TLS13_SUITES, type CipherSuite } from './cipher-suites.ts';
import { buildClientHello, buildSslv2ClientHello, TLS13 } from './client-hello.ts';
import { isAnswer, rawProbe, type ProbeOutcome, type RawTarget } from './raw-probe.ts';

/** SSLv2's version code; the other versions use the client-hello.ts constants. */
export const SSL2 = 0x0002;

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
