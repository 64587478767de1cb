import { setMaxListeners } from 'node:events';
import type { CheckContext } from '../../core/plugin-api/index.ts';
import { mapLimit } from './pool.ts';
import { parsePorts } from './port-list.ts';
import { exposureFindings } from './risky-exposures.ts';
import { DEFAULT_LOGIN_USERS, serviceOf, type ServiceInfo } from './service-info.ts';
import { probeService } from './service-probes.ts';
import { scanSharded, type ShardedScanOptions } from './connect-shards.ts';

/** The port scan settings both the port and the network scanner read from their options. */
export interface ScanSettings {
  ports: number[];
  /** Connects in flight per host. */
  concurrency: number;
  /** Connects in flight at once, all hosts together. */
  maxSockets: number;
  connectTimeoutMs: number;
  minTimeoutMs: number;
  retries: number;
  adaptive: boolean;
  threads: number;
  probeTimeoutMs: number;
  authChecks: boolean;
  loginUsers: string[];
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export function scanSettings(options: Readonly<Record<string, unknown>>): ScanSettings {
  const users = typeof options.login_users === 'string' ? options.login_users.split(',').map((u) => u.trim()) : null;
  return {
    ports: parsePorts(options.ports),
    concurrency: num(options.concurrency, 300),
    maxSockets: num(options.max_sockets, 1000),
    connectTimeoutMs: num(options.connect_timeout_ms, 1500),
    minTimeoutMs: num(options.min_connect_timeout_ms, 100),
    retries: num(options.connect_retries, 1),
    adaptive: options.adaptive_timeout !== false,
    threads: num(options.scan_threads, 0),
    probeTimeoutMs: num(options.probe_timeout_ms, 2000),
    authChecks: options.auth_checks !== false,
    loginUsers: users ?? [...DEFAULT_LOGIN_USERS],
  };
}

/** The connect engine's options for these settings (also what the benchmark measures). */
export function connectOptions(s: ScanSettings): ShardedScanOptions {
  return {
    concurrency: Math.max(s.maxSockets, 1),
    hostConcurrency: s.concurrency,
    maxTimeoutMs: s.connectTimeoutMs,
    minTimeoutMs: s.minTimeoutMs,
    adaptive: s.adaptive,
    retries: s.retries,
    threads: s.threads,
  };
}

export interface ServiceScanOptions {
  /** Network scans name the host in every title. */
  prefixHost: boolean;
  /** Share of the check's progress already done before this scan (host discovery). */
  progressBase?: number;
}

/**
 * Connect scan of all `hosts` at once (interleaved, per-host adaptive timeouts, sharded
 * over threads when large), then service identification and access checks on every
 * open port, findings and services handed on. Progress: connects count for 90 %, the
 * identification of the open ports for the rest.
 */
export async function scanServices(ctx: CheckContext, hosts: readonly string[], s: ScanSettings, o: ServiceScanOptions): Promise<void> {
  const base = o.progressBase ?? 0;
  const report = (fraction: number) => ctx.progress(Math.round((base + (1 - base) * fraction) * 1000), 1000);
  const results = await scanSharded(hosts.map((host) => ({ host, ports: s.ports })), {
    ...connectOptions(s),
    signal: ctx.signal,
    onProgress: (done, total) => report(0.9 * (done / total)),
  });
  for (const r of results) {
    const timing = r.srttMs === null ? 'no answers' : `rtt ${r.srttMs} ms, timeout ${r.timeoutMs} ms`;
    ctx.log('INFO', `${r.host}: ${r.open.length} open, ${r.closed} closed, ${r.filtered.length} filtered of ${s.ports.length} ports (${timing})`);
  }
  const open = results.flatMap((r) => r.open.map((port) => ({ host: r.host, port })));
  // Every probe in flight listens on the check's signal.
  setMaxListeners(64 + 16 * 8, ctx.signal);
  let probed = 0;
  const infos = await mapLimit(open, 16, async ({ host, port }) => {
    const info = await probeService(host, port, { timeoutMs: s.probeTimeoutMs, signal: ctx.signal, authChecks: s.authChecks, loginUsers: s.loginUsers });
    report(0.9 + (0.1 * ++probed) / open.length);
    return info;
  }, { signal: ctx.signal });
  open.forEach(({ host, port }, i) => {
    const info = nameErlangPorts(infos[i]!, port, infos.filter((_, k) => open[k]!.host === host));
    ctx.addService(serviceOf(host, port, info));
    for (const f of exposureFindings(host, port, info)) {
      ctx.report(o.prefixHost ? { ...f, title: `${host}: ${f.title}`, evidence: { ...f.evidence, host } } : f);
    }
  });
  report(1);
}

/**
 * An Erlang distribution port stays silent to every probe; epmd on the same host names
 * it. A port epmd lists for a node is labelled with that node.
 */
function nameErlangPorts(info: ServiceInfo, port: number, sameHost: readonly ServiceInfo[]): ServiceInfo {
  if (info.service !== 'unknown') return info;
  const node = sameHost.flatMap((i) => i.nodes ?? []).find((n) => n.port === port);
  return node ? { service: 'erlang-dist', banner: `Erlang distribution of node ${node.name}`, auth: 'unknown', details: { node: node.name, listed_by: 'epmd' } } : info;
}
