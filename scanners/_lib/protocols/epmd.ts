import type { AccessOptions, ErlangNode, ServiceInfo } from '../service-info.ts';
import { exchange } from '../exchange.ts';

/** NAMES_REQ: length 1, request 110 ('n'). Read-only: epmd answers and closes. */
export const EPMD_NAMES_REQ = Buffer.from([0, 1, 110]);

/**
 * Parses epmd's NAMES answer: its own port (4 bytes), then one `name <node> at port
 * <port>` line per registered Erlang node. Null when `data` is not such an answer.
 */
export function parseEpmdNames(data: Buffer): { epmdPort: number; nodes: ErlangNode[] } | null {
  if (data.length < 4) return null;
  const epmdPort = data.readUInt32BE(0);
  if (epmdPort < 1 || epmdPort > 65535) return null;
  const text = data.subarray(4).toString('latin1');
  const lines = text.split('\n').filter((l) => l.length);
  const nodes: ErlangNode[] = [];
  for (const line of lines) {
    const m = /^name (\S{1,255}) at port (\d{1,5})$/.exec(line);
    if (!m) return null;
    nodes.push({ name: m[1]!, port: Number(m[2]) });
  }
  return { epmdPort, nodes };
}

/**
 * Identifies the Erlang port mapper (RabbitMQ, CouchDB, ejabberd… clusters) with a
 * NAMES request, which lists the Erlang nodes on the host and their distribution ports:
 * the first step of an attack on the node's cookie. Null when the port is not epmd.
 */
export async function probeEpmd(host: string, port: number, o: AccessOptions): Promise<ServiceInfo | null> {
  const { data } = await exchange(host, port, { payload: EPMD_NAMES_REQ, waitMs: o.timeoutMs, maxBytes: 64 * 1024, signal: o.signal, untilClose: true });
  const names = parseEpmdNames(data);
  if (!names) return null;
  const list = names.nodes.map((n) => `${n.name}:${n.port}`).join(', ');
  return {
    service: 'epmd',
    banner: names.nodes.length ? `Erlang nodes: ${list}`.slice(0, 200) : 'Erlang port mapper (no nodes)',
    auth: 'none',
    details: { epmd_port: String(names.epmdPort), nodes: list.slice(0, 500) },
    nodes: names.nodes,
  };
}
