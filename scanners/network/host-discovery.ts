import type { CheckContext, ScanTarget } from '../../core/plugin-api/index.ts';
import { mapLimit } from '../_lib/pool.ts';
import { parsePorts } from '../_lib/port-list.ts';
import { scanAddresses } from '../_lib/port-targets.ts';
import { tcpConnect } from '../_lib/tcp-connect.ts';

/** Ports that answer on most hosts of a typical network (servers, Windows, network gear). */
export const DISCOVERY_PORTS = '22,80,443,445,3389,8080,8443,21,23,25,53,135,139,3306,5432';

export interface LiveHost {
  host: string;
  /** Discovery ports that accepted the connection. */
  open: number[];
  /** How the host showed itself: an open port, or only a refusal (RST: the host exists). */
  answered: 'open' | 'refused';
}

export interface Discovery {
  cidr: string;
  scanned: number;
  truncated: boolean;
  ports: number[];
  live: LiveHost[];
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/**
 * TCP-connect host discovery across a network asset: every in-scope address (at most
 * `max_hosts`, deny list applied by the port scanner's address enumeration) is tried on
 * the discovery ports, with `discovery_concurrency` connects in flight and at most
 * `discovery_rate` connects started per second. A refused connect proves a host too,
 * unless `refused_means_up` is false.
 */
export async function discoverHosts(ctx: CheckContext, target: ScanTarget): Promise<Discovery> {
  const ports = parsePorts(String(ctx.options.discovery_ports ?? DISCOVERY_PORTS));
  const maxHosts = num(ctx.options.max_hosts, 256);
  const { addresses, truncated } = await scanAddresses(ctx, target, maxHosts);
  if (truncated) ctx.log('WARN', `${target.name} has more than max_hosts=${maxHosts} addresses; only the first ${addresses.length} are tried`);
  const timeoutMs = num(ctx.options.discovery_timeout_ms, 800);
  const rate = num(ctx.options.discovery_rate, 500);
  const refusedUp = ctx.options.refused_means_up !== false;
  const pairs = addresses.flatMap((host) => ports.map((port) => ({ host, port })));
  const states = await mapLimit(pairs, num(ctx.options.discovery_concurrency, 100), (p) => tcpConnect(p.host, p.port, { timeoutMs, signal: ctx.signal }), {
    signal: ctx.signal,
    minIntervalMs: rate > 0 ? 1000 / rate : 0,
  });
  const byHost = new Map<string, LiveHost>();
  pairs.forEach((p, i) => {
    const state = states[i];
    if (state === 'filtered' || (state === 'closed' && !refusedUp)) return;
    const entry = byHost.get(p.host) ?? { host: p.host, open: [], answered: 'refused' as const };
    if (state === 'open') {
      entry.open.push(p.port);
      entry.answered = 'open';
    }
    byHost.set(p.host, entry);
  });
  const live = addresses.filter((a) => byHost.has(a)).map((a) => byHost.get(a)!);
  ctx.log('INFO', `${target.name}: ${live.length} live of ${addresses.length} addresses tried on ${ports.length} ports`);
  return { cidr: target.name, scanned: addresses.length, truncated, ports, live };
}
