import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { connectScan, SocketExhaustedError, type ConnectScanOptions, type ConnectTarget, type HostScanResult } from './connect-engine.mjs';
import type { ShardResult, ShardTask } from './connect-shard-worker.mjs';

/**
 * Below this many connects one thread is faster: starting threads and merging their
 * results costs more than the second core saves.
 */
export const SHARD_MIN_PORTS = 8192;
const MAX_SHARDS = 8;
const WORKER = new URL('./connect-shard-worker.mjs', import.meta.url).href;

let pool: Piscina | null = null;

/**
 * The threads large scans are spread over: one pool per thread that scans (the check's
 * own piscina thread), started on first use and idle threads ended after 30 s, so a
 * scan that follows another finds them warm.
 */
function shardPool(): Piscina {
  pool ??= new Piscina({ filename: WORKER, minThreads: 0, maxThreads: Math.max(2, Math.min(availableParallelism(), MAX_SHARDS)), idleTimeout: 30_000, concurrentTasksPerWorker: 1 });
  return pool;
}

/** How many threads a scan of `connects` ports uses: `requested` when > 0, else one per core for large scans. */
export function shardCount(connects: number, requested?: number): number {
  if (requested && requested > 0) return Math.min(Math.floor(requested), MAX_SHARDS);
  return connects < SHARD_MIN_PORTS ? 1 : Math.max(1, Math.min(availableParallelism(), MAX_SHARDS));
}

export interface ShardedScanOptions extends ConnectScanOptions {
  /** Threads to spread the scan over (0 or absent: automatic, see {@link shardCount}). */
  threads?: number;
}

/**
 * {@link connectScan} spread over worker threads when the scan is large: every host's
 * ports are dealt to the shards in turn (port i to shard i mod n), so each shard sees
 * the same mix of hosts and ranges and learns the same timings; the results are merged
 * back per host; the connect budgets are shared out between the shards. A loopback full range is CPU-bound (one socket per port), so this is
 * what lets it use every core.
 */
export async function scanSharded(targets: readonly ConnectTarget[], opts: ShardedScanOptions): Promise<HostScanResult[]> {
  const connects = targets.reduce((s, t) => s + t.ports.length, 0);
  const n = shardCount(connects, opts.threads);
  const { threads: _threads, signal, onProgress, ...plain } = opts;
  if (n <= 1) return connectScan(targets, opts);
  const shards = Array.from({ length: n }, (_, k) => targets.map((t) => ({ host: t.host, ports: t.ports.filter((_p, i) => i % n === k) })));
  let done = 0;
  const channels = shards.map(() => new MessageChannel());
  for (const { port1 } of channels) {
    port1.on('message', (m: { type?: string; done?: number }) => {
      if (m?.type !== 'progress' || !m.done || done >= connects) return;
      done += m.done;
      onProgress?.(done, connects);
    });
  }
  const onAbort = () => channels.forEach(({ port1 }) => port1.postMessage({ type: 'cancel' }));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const results = (await Promise.all(
      shards.map((shardTargets, k) => {
        const share = (x: number) => Math.max(1, Math.ceil(x / n));
        const options = { ...plain, concurrency: share(plain.concurrency), hostConcurrency: share(plain.hostConcurrency ?? plain.concurrency) };
        const task: ShardTask = { targets: shardTargets, options, port: channels[k]!.port2 };
        return shardPool().run(task, { transferList: [channels[k]!.port2] as never }) as Promise<ShardResult>;
      }),
    )) as ShardResult[];
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    const failed = results.find((r) => !Array.isArray(r));
    if (failed && !Array.isArray(failed)) {
      if (failed.error.exhausted) throw new SocketExhaustedError(failed.error.code ?? 'EMFILE');
      throw Object.assign(new Error(failed.error.message), { code: failed.error.code });
    }
    // A shard's last progress message may still be on its way when its result is in.
    if (done < connects) onProgress?.(connects, connects);
    done = connects;
    return merge(targets, results as HostScanResult[][]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    channels.forEach(({ port1 }) => port1.close());
  }
}

function merge(targets: readonly ConnectTarget[], results: HostScanResult[][]): HostScanResult[] {
  return targets.map((t, i) => {
    const parts = results.map((r) => r[i]!);
    const answered = parts.filter((p) => p.srttMs !== null);
    return {
      host: t.host,
      open: parts.flatMap((p) => p.open).sort((a, b) => a - b),
      closed: parts.reduce((s, p) => s + p.closed, 0),
      filtered: parts.flatMap((p) => p.filtered).sort((a, b) => a - b),
      timeoutMs: Math.max(...parts.map((p) => p.timeoutMs)),
      srttMs: answered.length ? Math.round((answered.reduce((s, p) => s + p.srttMs!, 0) / answered.length) * 100) / 100 : null,
    };
  });
}
