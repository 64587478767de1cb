import test from 'ava';
import { pathToFileURL } from 'node:url';
import { CheckPool, type CheckJob } from '../../../core/scans/check-pool.ts';
import { ENGINE_SCANNER } from '../../_helpers/harness/scan-helpers.ts';
import { childrenOf } from '../../_helpers/harness/processes.ts';

// Runs from the sources through tsx, as the tests and `npm run dev` do: the path where
// every retired thread used to leave a dead esbuild process behind.

const job = (checkId: string, depth: string): CheckJob => ({
  moduleUrl: pathToFileURL(ENGINE_SCANNER).href,
  checkId,
  target: { type: 'ip', name: '127.0.0.1', addresses: ['127.0.0.1'] } as never,
  options: { depth },
  scope: { allow: ['127.0.0.1/32'], deny: [] } as never,
  timeoutMs: 60_000,
});

test('threads that start, run, are terminated mid-check and retired leave no child process behind', async (t) => {
  t.timeout(120_000);
  // The first pool of the process starts its one transpiler service (kept for the process).
  const warm = new CheckPool({ maxThreads: 1 });
  t.is((await warm.run(job('engine:findings', 'less'))).status, 'completed');
  await warm.destroy();
  const before = childrenOf();

  for (let i = 0; i < 3; i++) {
    const pool = new CheckPool({ maxThreads: 2 });
    const done = await pool.run(job('engine:findings', 'less'));
    t.is(done.status, 'completed');
    t.true(done.findings.some((f) => f.title === 'Engine finding A'));
    // A check that blocks its thread and ignores the cancel: the thread is terminated.
    const abort = new AbortController();
    const hung = pool.run(job('engine:slow', 'hang'), { signal: abort.signal, graceMs: 50 });
    setTimeout(() => abort.abort(), 300);
    t.is((await hung).status, 'cancelled');
    await pool.destroy();
  }
  // Give exited children a moment to show up as zombies if nobody reaps them.
  await new Promise((r) => setTimeout(r, 500));
  const after = childrenOf();
  t.deepEqual(after.filter((c) => c.state === 'Z'), [], 'no dead child waits to be reaped');
  t.deepEqual(after.map((c) => c.pid).sort(), before.map((c) => c.pid).sort(), 'no child process was added');
});
