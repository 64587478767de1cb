import { Socket } from 'node:net';
import { addressOnly } from './address-only.mjs';
import { SocketExhaustedError } from './connect-engine.mjs';
import { scanSharded } from './connect-shards.ts';

export type PortState = 'open' | 'closed' | 'filtered';

export { SocketExhaustedError };

const LOCAL_LIMITS = new Set(['EMFILE', 'ENFILE', 'EADDRNOTAVAIL', 'ENOBUFS', 'ENOMEM']);
const FILTERED = new Set(['ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

export interface ConnectOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Source port (normally left to the OS; tests use it to provoke a self-connect). */
  localPort?: number;
}

/**
 * One TCP connect: open (handshake completed), closed (RST: ECONNREFUSED), filtered
 * (no answer within the timeout, or unreachable). Two traps are handled:
 * - on loopback, a connect to a port in the ephemeral range can be answered by the
 *   socket itself (TCP simultaneous open: local port = remote port); that is not a
 *   service, so it counts as closed;
 * - EMFILE/ENFILE (too many sockets in flight for `ulimit -n`) throw
 *   SocketExhaustedError instead of looking like a closed port.
 */
export function tcpConnect(host: string, port: number, opts: ConnectOptions): Promise<PortState> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(opts.signal.reason ?? new Error('aborted'));
    addressOnly(host);
    const socket = new Socket();
    let settled = false;
    const finish = (err: Error | null, state?: PortState) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(state!);
    };
    const onAbort = () => finish(opts.signal?.reason instanceof Error ? opts.signal.reason : new Error('aborted'));
    const timer = setTimeout(() => finish(null, 'filtered'), opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      const self = socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress;
      finish(null, self ? 'closed' : 'open');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? '';
      if (code === 'ECONNREFUSED' || code === 'ECONNRESET') return finish(null, 'closed');
      if (FILTERED.has(code)) return finish(null, 'filtered');
      if (LOCAL_LIMITS.has(code)) return finish(new SocketExhaustedError(code));
      finish(err);
    });
    try {
      socket.connect(opts.localPort ? { host, port, localAddress: host, localPort: opts.localPort } : { host, port });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      finish(LOCAL_LIMITS.has(code) ? new SocketExhaustedError(code) : (err as Error));
    }
  });
}

export interface PortScanOptions {
  /** Connects in flight at once (spread over the threads of a sharded scan). */
  concurrency: number;
  /** Ceiling of a connect's timeout; also the timeout until the host has answered once. */
  timeoutMs: number;
  /** Floor of the learned timeout (default 100 ms). */
  minTimeoutMs?: number;
  /** Learn the timeout from the host's answers (default true). */
  adaptive?: boolean;
  /** Further attempts for a port that did not answer (default 1). */
  retries?: number;
  /** Threads (0/absent: one per core for scans of 8192 ports or more). */
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface PortScanResult {
  open: number[];
  closed: number;
  /** How many ports never answered (or answered "unreachable"). */
  filtered: number;
  filteredPorts: number[];
  /** The connect timeout the scan ended with (learned from the host's answers, or the fixed one). */
  timeoutMs: number;
  srttMs: number | null;
}

/** Connect scan of many ports of one host (adaptive timeouts, sharded when large); open ports sorted. */
export async function scanPorts(host: string, ports: readonly number[], opts: PortScanOptions): Promise<PortScanResult> {
  const [r] = await scanSharded([{ host, ports }], {
    concurrency: opts.concurrency,
    maxTimeoutMs: opts.timeoutMs,
    minTimeoutMs: opts.minTimeoutMs,
    adaptive: opts.adaptive,
    retries: opts.retries,
    threads: opts.threads,
    signal: opts.signal,
    onProgress: opts.onProgress,
  });
  return { open: r!.open, closed: r!.closed, filtered: r!.filtered.length, filteredPorts: r!.filtered, timeoutMs: r!.timeoutMs, srttMs: r!.srttMs };
}
