// A piscina thread that runs one shard of a large connect scan (connect-shards.ts).
// Plain JavaScript: no TypeScript loader to start, so a shard thread is ready in tens
// of milliseconds.
import { connectScan } from './connect-engine.mjs';

/** Runs its share of the ports; reports progress and listens for `cancel` on `port`. */
export default async function runShard({ targets, options, port }) {
  const controller = new AbortController();
  port.on('message', (m) => {
    if (m?.type === 'cancel') controller.abort(new Error('cancelled'));
  });
  let last = 0;
  try {
    return await connectScan(targets, {
      ...options,
      signal: controller.signal,
      onProgress: (done) => {
        port.postMessage({ type: 'progress', done: done - last });
        last = done;
      },
    });
  } catch (err) {
    // Errors cross the thread boundary as data: the class would be lost on the way.
    return { error: { message: err?.message ?? String(err), code: err?.code ?? null, exhausted: err?.name === 'SocketExhaustedError' } };
  } finally {
    port.close();
  }
}
