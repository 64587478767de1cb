import { TLS13_SUITES } from './cipher-suites.ts';
import { buildClientHello, TLS13 } from './client-hello.ts';
import { describeOutcome, isAnswer, rawProbe, type ProbeOutcome, type RawTarget } from './raw-probe.ts';
import { PQ_GROUPS } from './tls-names.ts';

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
    const outcome: ProbeOutcome = await rawProbe(t, buildClientHello({ version: TLS13, cipherSuites: TLS13_SUITES.map((s) => s.id), serverName: t.servername, groups: [g.id] }));
    if (!isAnswer(outcome)) conclusive = false;
    const supported = outcome.kind === 'hello_retry_request' && outcome.selectedGroup === g.id;
    probes.push({ group: g.name, id: g.id, supported, answer: describeOutcome(outcome) });
    if (!isAnswer(outcome)) break; // an unreachable server would cost one timeout per group
  }
  return { supported: probes.filter((p) => p.supported).map((p) => p.group), probes, conclusive };
}
