import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel } from 'node:worker_threads';
import { useTypeScriptBridge } from './typescript-thread.mjs';

/**
 * TypeScript at run time, besides the compiled build:
 *
 * - `npm run dev` and the tests run the sources through tsx, whose loader lives in the main
 *   thread only. A worker thread that registered tsx itself started an esbuild child
 *   process per thread, and when piscina retired the thread (idle timeout, a cancelled
 *   check) nobody was left to reap that child: one zombie per thread start. Worker threads
 *   therefore ask the main thread to transpile (`serveTypeScriptToThreads`), which keeps
 *   one esbuild service for the whole process.
 *   The process's `--import tsx` did the same when a thread inherited it, so threads start
 *   without the process's Node flags (core/scans/check-pool.ts).
 * - The compiled start (dist/) has no transpiler loaded; a third-party plugin written in
 *   TypeScript is transpiled the same way, in every thread, on first import.
 */

/** Whether this process runs the compiled JavaScript (dist/) rather than the sources. */
export const RUNNING_COMPILED = import.meta.url.endsWith('.js');

const CHANNEL = 'rampart:typescript';
const TYPESCRIPT = /\.m?ts$/;

export function isTypeScriptModule(url: string): boolean {
  return url.startsWith('file:') && TYPESCRIPT.test(new URL(url).pathname);
}

interface Esbuild {
  transform(code: string, options: Record<string, unknown>): Promise<{ code: string }>;
}

let esbuild: Esbuild | null = null;
let channel: BroadcastChannel | null = null;

/** tsx's own esbuild (tsx is a dependency; esbuild comes with it), so no second copy is installed. */
function transpiler(): Esbuild {
  if (!esbuild) {
    const require = createRequire(import.meta.url);
    esbuild = require(createRequire(require.resolve('tsx/package.json')).resolve('esbuild')) as Esbuild;
  }
  return esbuild;
}

export async function transpile(url: string): Promise<string> {
  const file = fileURLToPath(url);
  const source = await readFile(file, 'utf8');
  const out = await transpiler().transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file });
  return out.code;
}

/**
 * Answers the worker threads' requests to transpile a module (one listener per
 * process, whatever number of pools). Never keeps the process alive by itself.
 */
export function serveTypeScriptToThreads(): void {
  if (channel) return;
  channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  const answer = channel;
  answer.onmessage = (message) => {
    const data = (message as { data?: unknown }).data as { type?: string; id?: string; url?: string } | null;
    if (data?.type !== 'transpile' || !data.id || !data.url) return;
    transpile(data.url).then(
      (code) => answer.postMessage({ type: 'transpiled', id: data.id, code }),
      (err: unknown) => answer.postMessage({ type: 'transpiled', id: data.id, error: err instanceof Error ? err.message : String(err) }),
    );
  };
}

/**
 * Makes `import(url)` of a TypeScript module work in this thread. Under tsx it already
 * does; in the compiled start the module hooks are registered here on first need.
 */
export function ensureTypeScriptImports(url: string): void {
  if (!RUNNING_COMPILED || !isTypeScriptModule(url)) return;
  serveTypeScriptToThreads();
  useTypeScriptBridge();
}
