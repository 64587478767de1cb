/** Types of connect-engine.mjs (plain JavaScript so that shard threads need no TypeScript loader). */

export class SocketExhaustedError extends Error {
  readonly code: string;
  constructor(code: string);
}

/** `raw` (libuv TCP handles, the fast path) or `net` (net.Socket, the fallback). */
export const connector: 'raw' | 'net';

export interface ConnectTarget {
  host: string;
  ports: readonly number[];
}

export interface ConnectScanOptions {
  /** Connects in flight at once, all hosts together. */
  concurrency: number;
  /** Connects in flight per host (default: `concurrency`). */
  hostConcurrency?: number;
  /** Ceiling of a connect's timeout, and the timeout before a host has answered once (unless `initialTimeoutMs`). */
  maxTimeoutMs: number;
  /** Floor of the learned timeout (default 100 ms). */
  minTimeoutMs?: number;
  initialTimeoutMs?: number;
  /** Learn each host's timeout from its answers (default true); false: every connect waits `maxTimeoutMs`. */
  adaptive?: boolean;
  /** Try each host's ports in random order, as nmap does (default true). */
  shuffle?: boolean;
  /** Further attempts for a port that did not answer (default 1). */
  retries?: number;
  signal?: AbortSignal;
  /** `net` forces net.Socket instead of libuv handles (the fallback, also used by tests). */
  sockets?: 'raw' | 'net';
  /** Ports finished so far, of all hosts (called about every percent, at least every 256 ports, and at the end). */
  onProgress?: (done: number, total: number) => void;
}

export interface HostScanResult {
  host: string;
  /** Ports that completed the handshake, sorted. */
  open: number[];
  /** Ports that answered with a reset (self-connects on loopback count here). */
  closed: number;
  /** Ports that never answered, or answered "unreachable", sorted. */
  filtered: number[];
  /** The host's connect timeout at the end of the scan (learned, or the fixed one). */
  timeoutMs: number;
  /** Smoothed round-trip time, null when the host never answered. */
  srttMs: number | null;
}

export function connectScan(targets: readonly ConnectTarget[], opts: ConnectScanOptions): Promise<HostScanResult[]>;
