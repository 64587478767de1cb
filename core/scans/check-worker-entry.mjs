// piscina worker entry, plain JavaScript so it loads before any TypeScript can.
// Compiled start: the compiled worker runs as is, and a TypeScript plugin's first task
// turns on the main thread's transpiler for this thread. Sources (tests, `npm run dev`):
// worker threads do not inherit the main thread's tsx loader, and a tsx of their own
// would start an esbuild child per thread that nobody reaps once the thread is retired;
// they ask the main thread to transpile instead (core/runtime/typescript-support.ts).
import { existsSync } from 'node:fs';
import { useTypeScriptBridge } from '../runtime/typescript-thread.mjs';

const compiled = new URL('./check-worker.js', import.meta.url);
const fromSources = !existsSync(compiled);
if (fromSources) useTypeScriptBridge();
const worker = await import(fromSources ? './check-worker.ts' : compiled.href);

const TYPESCRIPT = /\.m?ts$/;

export default function runCheckTask(task) {
  if (!fromSources && TYPESCRIPT.test(new URL(task.moduleUrl).pathname)) useTypeScriptBridge();
  return worker.default(task);
}
