import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutboundHttpClient } from '../core/outbound/http-client.ts';
import { sharedTestCertificates } from '../test/_helpers/certificates/certs.ts';
import { createTestApp, type TestApp } from '../test/_helpers/harness/test-app.ts';
import { startHttpsReceiver } from '../test/_helpers/receivers/https-receiver.ts';
import { bareSandboxLoop, bareSpawnLoop, fmt, inParallel, pct, rawPostLoop } from './_lib/action-baselines.ts';
import { isolateMemory, startTimes } from './_lib/isolate-costs.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * Issue 12 benchmark: action runs through the durable queue, each next to a bare loop
 * doing the same work in this process in the same run (ratios, never absolute targets).
 *
 *   npm run bench -- actions [--runs=200] [--rounds=3] [--samples=50] [--isolates=20] [--concurrency=N]
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/test npm run bench -- actions
 *
 * 1. No-op script action (isolate) and no-op local executable: runs/s trigger → completed,
 *    against createSandbox().run / spawn loops with the same concurrency.
 * 2. Isolate cold start, the script executor's steady-state run, memory per live isolate.
 * 3. Remote executor to a loopback HTTPS receiver against the raw POST loop.
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const N = arg('runs', 200);
const SAMPLES = arg('samples', 50);
const K = arg('isolates', 20);
const ROUNDS = arg('rounds', 3);
// `--concurrency=16` asks whether the default limit or the bookkeeping bounds the rate; its figures go to a section of their own.
const CONCURRENCY = arg('concurrency', 0);
const FINAL = ['completed', 'failed', 'timed_out', 'cancelled'];

interface PlatformRate {
  /** Worker stopped while N runs are queued through the trigger route, then started: drain time. */
  queueMs: number;
  drainMs: number;
  /** Worker running; N triggers through the route one after the other: first trigger → last completed. */
  liveMs: number;
}

interface Kind {
  label: string;
  actionId: string;
  bareLabel: string;
  bare: () => Promise<number>;
  rounds: Array<{ platform: PlatformRate; bareMs: number }>;
}

async function waitAllFinal(t0: TestApp, actionId: string, n: number): Promise<void> {
  for (;;) {
    const rows = (await t0.ctx.db('action_executions').where({ action_id: actionId }).whereIn('status', FINAL).groupBy('status').select('status', t0.ctx.db.raw('count(*) as n'))) as Array<{ status: string; n: number | string }>;
    const done = rows.reduce((s, r) => s + Number(r.n), 0);
    // Failed runs are counted, not fatal: the outcomes line of the report shows them.
    if (done >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One round of one action: a backlog drained, then live triggers; `round` counts the action's earlier rounds (their rows stay). */
async function platformRate(t0: TestApp, token: string, actionId: string, round: number): Promise<PlatformRate> {
  const trigger = async () => {
    const res = await t0.request('POST', `/api/actions/${actionId}/trigger`, { token, payload: { parameters: {} } });
    if (res.statusCode !== 202) throw new Error(`trigger answered ${res.statusCode}: ${res.raw}`);
  };
  const worker = t0.ctx.background.actions;
  const earlier = 2 * N * round;
  // Backlog: everything queued first, then the worker drains it.
  let started = performance.now();
  for (let i = 0; i < N; i++) await trigger();
  const queueMs = performance.now() - started;
  started = performance.now();
  worker.start();
  await waitAllFinal(t0, actionId, earlier + N);
  const drainMs = performance.now() - started;
  // Live: the worker runs while the runs are triggered.
  started = performance.now();
  for (let i = 0; i < N; i++) await trigger();
  await waitAllFinal(t0, actionId, earlier + 2 * N);
  const liveMs = performance.now() - started;
  await worker.stop();
  return { queueMs, drainMs, liveMs };
}

/** Final states of the action's runs, with the error code of the ones that did not complete. */
async function outcomes(t0: TestApp, actionId: string): Promise<string> {
  const rows = (await t0.ctx.db('action_executions').where({ action_id: actionId }).select('status', 'error')) as Array<{ status: string; error: string | null }>;
  const counts = new Map<string, number>();
  for (const r of rows) {
    const key = r.status === 'completed' ? 'completed' : `${r.status} (${(JSON.parse(r.error ?? '{}') as { code?: string }).code ?? '?'})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
}

/** claim → settle per run (started_at → completed_at of every row of the action), ms. */
async function attemptTimes(t0: TestApp, actionId: string): Promise<number[]> {
  const rows = (await t0.ctx.db('action_executions').where({ action_id: actionId }).select('started_at', 'completed_at')) as Array<{ started_at: number | string; completed_at: number | string }>;
  return rows.map((r) => Number(r.completed_at) - Number(r.started_at));
}

const rate = (ms: number) => (N * 1000) / ms;
const median = (xs: number[]) => pct(xs, 50);

function runsRows(k: Kind): string[] {
  const bare = median(k.rounds.map((r) => rate(r.bareMs)));
  const row = (what: string, pick: (p: PlatformRate) => number, bold: boolean) => {
    const rates = k.rounds.map((r) => rate(pick(r.platform)));
    const ratio = (median(rates) / bare).toFixed(2);
    const perRound = k.rounds.map((r) => (rate(pick(r.platform)) / rate(r.bareMs)).toFixed(2)).join(', ');
    return `| ${k.label}: ${what} | ${fmt(median(rates))} | ${rates.map(fmt).join(', ')} | ${bold ? `**${ratio}**` : ratio} | ${perRound} |`;
  };
  const bareRates = k.rounds.map((r) => rate(r.bareMs));
  return [
    row('trigger route → queue → worker → executor → completed (worker running)', (p) => p.liveMs, true),
    row(`drain of ${N} already queued runs`, (p) => p.drainMs, false),
    `| baseline: ${k.bareLabel} | ${fmt(bare)} | ${bareRates.map(fmt).join(', ')} | 1.00 | |`,
  ];
}

async function main(): Promise<void> {
  const memoryMb = 64;
  // (2) isolates first, while this process has loaded nothing else heavy.
  const starts = await startTimes(SAMPLES, memoryMb);
  const mem = await isolateMemory(K, memoryMb);
  const mem2 = await isolateMemory(2 * K, memoryMb);
  console.log(`isolates: cold p50 ${fmt(pct(starts.cold, 50))} ms, executor p50 ${fmt(pct(starts.executor, 50))} ms, ${K} held +${fmt(mem.rssHeldMb - mem.rssBeforeMb)} MB RSS`);

  const { ca } = await sharedTestCertificates();
  const receiver = await startHttpsReceiver();
  receiver.respond(() => ({ status: 200, body: '{"ok":true}' }));
  const scripts = await mkdtemp(join(tmpdir(), 'rampart-bench-scripts-'));
  const noop = join(scripts, 'noop.sh');
  await writeFile(noop, `#!/bin/sh\nprintf '%s' '{"status":"success","data":{}}'\n`);
  await chmod(noop, 0o755);
  const t0 = await createTestApp({
    http: { validateResponses: false },
    outbound: { caCerts: [ca.certPem] },
    // The defaults (config/default.json) except the per-action limit, which must not be the bottleneck here.
    executors: { ...(CONCURRENCY ? { concurrency: CONCURRENCY } : {}), perActionConcurrency: 64, pollIntervalMs: 500, leaseMs: 30_000, killGraceMs: 2000, local: { scriptsDir: scripts } },
  });
  const concurrency = t0.config.executors.concurrency;
  try {
    const { token } = await t0.tenant({ tier: 'enterprise' });
    const create = async (payload: Record<string, unknown>) => {
      const res = await t0.request('POST', '/api/actions', { token, payload });
      if (res.statusCode !== 201) throw new Error(res.raw);
      return res.body.data.id as string;
    };
    const scriptId = await create({ name: 'noop-script', type: 'script', executor: 'local', config: { source: 'return 1' } });
    const localId = await create({ name: 'noop-local', type: 'remediation', executor: 'local', config: { target: 'noop.sh' } });
    const remoteId = await create({ name: 'noop-remote', type: 'remediation', executor: 'remote', config: { target: `${receiver.origin}/noop` } });

    // (1) and (3): interleaved rounds, each platform phase right before its bare loop; medians over rounds.
    const client = new OutboundHttpClient({ ...t0.config.outbound, userAgent: 'bench' });
    await inParallel(concurrency, concurrency, async () => void (await client.request({ method: 'POST', url: `${receiver.origin}/warm`, body: '{}' })));
    const kinds: Kind[] = [
      { label: '(a) no-op isolate script (`type: script`, `return 1`)', actionId: scriptId, bareLabel: '`createSandbox().run(\'return 1\')` loop', bare: () => bareSandboxLoop(N, concurrency), rounds: [] },
      { label: '(b) no-op local executable (`#!/bin/sh` printf)', actionId: localId, bareLabel: '`spawn` of the same executable, `{}` on stdin, stdout parsed', bare: () => bareSpawnLoop(noop, N, concurrency), rounds: [] },
      { label: '(c) remote executor → loopback HTTPS receiver', actionId: remoteId, bareLabel: 'raw POST loop through the outbound client (the webhook benchmark\'s baseline), same concurrency and body', bare: () => rawPostLoop(client, `${receiver.origin}/raw`, '{}', N, concurrency), rounds: [] },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) {
        const platform = await platformRate(t0, token, kind.actionId, round);
        kind.rounds.push({ platform, bareMs: await kind.bare() });
        console.log(`round ${round + 1} ${kind.label}: ${fmt(rate(platform.liveMs))} runs/s vs bare ${fmt(rate(kind.rounds.at(-1)!.bareMs))}`);
      }
    }
    await client.close();
    const sent = receiver.requests.filter((r) => r.path === '/noop');
    if (sent.length !== 2 * N * ROUNDS) throw new Error(`the receiver got ${sent.length} remote runs, not ${2 * N * ROUNDS}`);

    const engine = t0.database.engine === 'mysql' ? 'MariaDB' : 'SQLite';
    const ms = (xs: number[]) => `${fmt(pct(xs, 50))} | ${fmt(pct(xs, 95))}`;
    const perIsolate = (m: typeof mem) => (m.rssHeldMb - m.rssBeforeMb) / m.count;
    const slope = (mem2.rssHeldMb - mem2.rssBeforeMb - (mem.rssHeldMb - mem.rssBeforeMb)) / (mem2.count - mem.count);
    writeReportSection('actions', `Runs through the queue (${engine}${CONCURRENCY ? `, concurrency ${CONCURRENCY}` : ''})`, [
      `${ROUNDS} interleaved rounds of ${N} runs per row, \`executors.concurrency\` ${concurrency}${CONCURRENCY ? ' (not the default: `--concurrency`)' : ' (the default)'}, \`perActionConcurrency\` 64, poll interval 500 ms (the worker is also woken by each trigger and each finished run). Triggers go through \`POST /api/actions/{id}/trigger\` (server.inject, one after the other); completion is read from \`action_executions\` every 10 ms. Each bare loop uses the same concurrency (${concurrency}) in this process, run right after its platform row. Event consumers (webhooks, SIEM, stream) are not running: \`action.*\` events only land in the outbox.`,
      '',
      '| measurement | runs/s (median) | runs/s per round | ratio to baseline (medians) | ratio per round |',
      '|---|---:|---:|---:|---:|',
      ...kinds.flatMap(runsRows),
      '',
      `Queueing ${N} runs through the trigger route with the worker stopped (median triggers/s): ${kinds.map((k) => `${k.label.slice(0, 3)} ${fmt(median(k.rounds.map((r) => rate(r.platform.queueMs))))}`).join(', ')}.`,
      '',
      `| engine time per run (claim → settle, \`started_at\` → \`completed_at\`, all ${2 * N * ROUNDS} runs of the action) | p50 ms | p95 ms | outcomes |`,
      '|---|---:|---:|---|',
      ...(await Promise.all(kinds.map(async (k) => `| ${k.label} | ${ms(await attemptTimes(t0, k.actionId))} | ${await outcomes(t0, k.actionId)} |`))),
    ]);
    writeReportSection('actions', 'Isolates', [
      `isolated-vm ${SAMPLES} samples per row, one after the other, heap limit ${memoryMb} MB (\`executors.script.memoryMb\` default).`,
      '',
      '| measurement | p50 ms | p95 ms |',
      '|---|---:|---:|',
      `| cold start: \`createSandbox().run('return 1')\` (fresh isolate + context + prelude + run + dispose) | ${ms(starts.cold)} |`,
      `| warm start: the script executor's \`run()\` in steady state (fresh isolate per run, as the engine does, plus the wrapper) | ${ms(starts.executor)} |`,
      `| reference: one isolate kept, a new context per run (not what the engine does) | ${ms(starts.reused)} |`,
      '',
      `First isolate of the process (module load and first compile included): ${fmt(starts.firstMs)} ms.`,
      '',
      '| isolates alive at once (each awaiting a host function) | RSS before MB | RSS while held MB | RSS after MB | MB per isolate |',
      '|---:|---:|---:|---:|---:|',
      ...[mem, mem2].map((m) => `| ${m.count} | ${fmt(m.rssBeforeMb)} | ${fmt(m.rssHeldMb)} | ${fmt(m.rssAfterMb)} | ${fmt(perIsolate(m))} |`),
      '',
      `Marginal cost from ${mem.count} to ${mem2.count} isolates: **${fmt(slope)} MB per isolate** of RSS (Node's own heap grew ${fmt(mem.heapGrowthMb)} MB for ${mem.count}: isolate heaps live outside it).`,
    ]);
  } finally {
    await t0.close();
    await receiver.close();
    await rm(scripts, { recursive: true, force: true });
  }
}

await main();
