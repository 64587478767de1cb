// One way to run every crash case: the test process holds the API (an app whose
// background services never start), worker PROCESSES on its database do all the work,
// and both run with the same config overrides (short leases and intervals).
import type { ExecutionContext } from 'ava';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';
import { startWorker, type WorkerProcess } from '../../_helpers/harness/worker-process.ts';

type Tree = Record<string, unknown>;

/** Leases and intervals short enough that a dead worker's work is taken over within about a second. */
export const SHORT_LEASES: Tree = {
  events: { pollIntervalMs: 50, gapGraceMs: 10_000, consumerLeaseMs: 1000 },
  executors: { pollIntervalMs: 50, leaseMs: 1000, killGraceMs: 200 },
  playbooks: { pollIntervalMs: 50, leaseMs: 1000 },
  exports: { pollIntervalMs: 50, leaseMs: 1000 },
  webhooks: { workerPollIntervalMs: 50, requestTimeoutMs: 2000, leaseMs: 3000 },
  scans: { worker: { pollIntervalMs: 50, leaseMs: 1000, heartbeatMs: 100 } },
};

export interface CrashWorld {
  app: TestApp;
  tenantId: string;
  token: string;
  /** An API call as the world's tenant; throws unless it answers 2xx. Returns `data`. */
  call(method: string, url: string, payload?: unknown): Promise<any>;
  /** A new worker process, started and ready. */
  worker(): Promise<WorkerProcess>;
  /** Error and fatal log lines of every worker process so far (the killed ones included). */
  workerErrors(): string[];
  close(): Promise<void>;
}

function deepMerge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = value && typeof value === 'object' && !Array.isArray(value) && prev && typeof prev === 'object' && !Array.isArray(prev) ? deepMerge(prev as Tree, value as Tree) : value;
  }
  return out;
}

export async function crashWorld(overrides: Tree = {}): Promise<CrashWorld> {
  const config = deepMerge(SHORT_LEASES, overrides);
  const app = await createTestApp(config);
  const { tenantId, token } = await app.tenant();
  const workers: WorkerProcess[] = [];
  return {
    app,
    tenantId,
    token,
    async call(method, url, payload) {
      const res = await app.request(method, url, { token, payload });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.raw.slice(0, 500)}`);
      return res.body?.data;
    },
    async worker() {
      const w = startWorker(app.database.url, config);
      workers.push(w);
      await w.ready;
      return w;
    },
    workerErrors: () =>
      workers.flatMap((w) => w.output().split('\n').filter((line) => /"level":(50|60)/.test(line))),
    async close() {
      await Promise.all(workers.map((w) => w.crash()));
      await app.close();
    },
  };
}

/** How many times each value occurs. */
export function tally<T>(values: Iterable<T>): Map<T, number> {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/** Asserts that every expected key occurs exactly `times` and nothing else occurs. */
export function assertCounted<T>(t: ExecutionContext, counts: Map<T, number>, expected: Iterable<T>, times: number, what: string): void {
  const want = [...expected];
  const wrong = want.filter((k) => counts.get(k) !== times).map((k) => `${String(k)}×${counts.get(k) ?? 0}`);
  const extra = [...counts.keys()].filter((k) => !want.includes(k)).map(String);
  t.deepEqual({ wrong, extra }, { wrong: [], extra: [] }, `${what}: each of ${want.length} exactly ${times}×`);
}
