import { spawn } from 'node:child_process';
import { createSandbox } from '../../core/sandbox/sandbox.ts';
import type { OutboundHttpClient } from '../../core/outbound/http-client.ts';

/** Sorted-sample statistics for the reports. */
export const pct = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
export const fmt = (n: number): string => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2) : 'n/a');

/** Calls `work(i)` for i in [0, n) with at most `concurrency` in flight; answers the wall time in ms. */
export async function inParallel(n: number, concurrency: number, work: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
  return performance.now() - started;
}

/** Baseline (a): the same no-op script in a fresh isolate per run, in this process, no queue, no database. */
export async function bareSandboxLoop(n: number, concurrency: number): Promise<number> {
  return inParallel(n, concurrency, async () => {
    const { result } = await createSandbox().run('return 1');
    if (result !== 1) throw new Error(`bare isolate answered ${JSON.stringify(result)}`);
  });
}

/** One spawn of the executable: `{}` on stdin, stdout parsed as the JSON status document. */
function spawnOnce(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stdin.on('error', () => {});
    child.stdin.end('{}');
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${file} exited ${code}`));
      const doc = JSON.parse(out) as { status?: string };
      if (doc.status !== 'success') return reject(new Error(`${file} printed ${out}`));
      resolve();
    });
  });
}

/** Baseline (b): spawn of the same executable, same concurrency, nothing else. */
export async function bareSpawnLoop(file: string, n: number, concurrency: number): Promise<number> {
  return inParallel(n, concurrency, () => spawnOnce(file));
}

/** Baseline (c): the raw POST loop of the webhook benchmark: the platform's pooled outbound client, no queue, no bookkeeping. */
export async function rawPostLoop(client: OutboundHttpClient, url: string, body: string, n: number, concurrency: number): Promise<number> {
  return inParallel(n, concurrency, async () => {
    const res = await client.request({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body });
    if (res.statusCode !== 200) throw new Error(`raw POST answered ${res.statusCode}`);
  });
}
