// Module hooks for threads that must import TypeScript without a transpiler of their
// own (see typescript-support.ts): `.ts`/`.mts` modules are transpiled by the main
// thread, asked over a BroadcastChannel. Runs in Node's module-hooks thread.
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';

const CHANNEL = 'rampart:typescript';
const TIMEOUT_MS = 60_000;
const TYPESCRIPT = /\.m?ts$/;

const channel = new BroadcastChannel(CHANNEL);
/** Requests waiting for the main thread, by id. The channel holds the thread open only while one waits. */
const waiting = new Map();
channel.unref();
channel.onmessage = ({ data }) => {
  if (data?.type !== 'transpiled') return;
  const request = waiting.get(data.id);
  if (!request) return; // another thread's answer
  settle(data.id);
  if (data.error) request.reject(new Error(data.error));
  else request.resolve(data.code);
};

function settle(id) {
  clearTimeout(waiting.get(id)?.timer);
  waiting.delete(id);
  if (!waiting.size) channel.unref();
}

function transpiled(url) {
  return new Promise((resolve, reject) => {
    const id = randomUUID();
    const timer = setTimeout(() => {
      settle(id);
      reject(new Error(`no answer from the main thread transpiling ${url}: it must call serveTypeScriptToThreads()`));
    }, TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    channel.ref();
    channel.postMessage({ type: 'transpile', id, url });
  });
}

function isTypeScript(url) {
  return url.startsWith('file:') && TYPESCRIPT.test(new URL(url).pathname);
}

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (err) {
    // TypeScript's own convention: a relative `.js` specifier in a .ts module names the .ts file beside it.
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && context.parentURL && isTypeScript(context.parentURL) && /^\.\.?\/.*\.js$/.test(specifier)) {
      return next(specifier.replace(/\.js$/, '.ts'), context);
    }
    throw err;
  }
}

export async function load(url, context, next) {
  if (!isTypeScript(url)) return next(url, context);
  return { format: 'module', source: await transpiled(url), shortCircuit: true };
}
