import { setMaxListeners } from 'node:events';
import { Socket } from 'node:net';

export type PortState = 'open' | 'closed' | 'filtered';

/** Raised when the machine itself runs out of sockets: never read that as "closed". */
export class SocketExhaustedError extends Error {
  readonly code: string;
  constructor(code: string) {
    super(`${code}: the scanner ran out of sockets (ulimit -n); lower the port scanner's concurrency`);
    this.code = code;
  }
}

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

export interface PortScanOptions extends ConnectOptions {
  /** Connects in flight at once (throughput peaks around 250-500 on loopback). */
  concurrency: number;
  onOpen?: (port: number) => void;
}

export interface PortScanResult {
  open: number[];
  closed: number;
  filtered: number;
}

/** Connect scan of many ports of one host with bounded concurrency; open ports sorted. */
export async function scanPorts(host: string, ports: readonly number[], opts: PortScanOptions): Promise<PortScanResult> {
  const result: PortScanResult = { open: [], closed: 0, filtered: 0 };
  // Every connect in flight listens on the one abort signal.
  if (opts.signal) setMaxListeners(opts.concurrency + 50, opts.signal);
  let next = 0;
  const lane = async () => {
    while (next < ports.length) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
      const port = ports[next++]!;
      const state = await tcpConnect(host, port, opts);
      if (state === 'open') {
        result.open.push(port);
        opts.onOpen?.(port);
      } else if (state === 'closed') result.closed += 1;
      else result.filtered += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, ports.length)) }, lane));
  result.open.sort((a, b) => a - b);
  return result;
}
