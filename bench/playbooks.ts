import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../test/_helpers/harness/test-app.ts';
import { fmt, pct } from './_lib/action-baselines.ts';
import { directStartTimes, endedDirect, endedRuns, runOutcomes, runShape, startedFirstSteps, triggerTimings, waitFor, type TriggerTiming } from './_lib/playbook-timings.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * Issue 13 benchmark: playbook trigger latency and runs per second, each next to the
 * action engine doing the same no-op script directly, in the same run (ratios, never
 * absolute targets). The worker role's background runs as in production
 * (`registry.start(['worker'])`: trigger consumer, run worker, action worker, and the
 * other consumers), with the default configuration.
 *
 *   npm run bench -- playbooks [--findings=200] [--spacing=50] [--burst=100] [--runs=100] [--rounds=2]
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/test npm run bench -- playbooks
 *
 * 1. Trigger latency: findings through `POST /api/findings`, one every `spacing` ms, each
 *    starting a one-step playbook (a no-op isolate script); then one bulk burst. Baseline:
 *    the same script action triggered directly through its route at the same spacing.
 * 2. Runs/s of a three-step playbook of that script, `POST /api/playbooks/{id}/run` N times,
 *    against 3×N direct triggers of the same action.
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const FINDINGS = arg('findings', 200);
const SPACING = arg('spacing', 50);
const BURST = arg('burst', 100);
const RUNS = arg('runs', 100);
const ROUNDS = arg('rounds', 2);
const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

// The harness loads config/test.json (short poll intervals and grace); the background's own timing keys go back to the production defaults.
const defaults = JSON.parse(readFileSync(new URL('../config/default.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const PRODUCTION = Object.fromEntries(['events', 'executors', 'playbooks', 'webhooks', 'exports', 'scans'].map((k) => [k, defaults[k]]));

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - performance.now())));

/** Calls `work(i)` N times, the i-th no earlier than i × spacing ms after the first; answers the achieved calls/s. */
async function spaced(n: number, spacing: number, work: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    await sleepUntil(started + i * spacing);
    await work(i);
  }
  return (n * 1000) / (performance.now() - started);
}

async function main(): Promise<void> {
  const t0: TestApp = await createTestApp({ ...PRODUCTION, http: { validateResponses: false } });
  const db = t0.ctx.db;
  try {
    const { token, tenantId } = await t0.tenant({ tier: 'enterprise' });
    const call = async (method: string, url: string, payload: unknown, status: number) => {
      const res = await t0.request(method, url, { token, payload });
      if (res.statusCode !== status) throw new Error(`${method} ${url} answered ${res.statusCode}: ${res.raw}`);
      return res.body;
    };
    const assetId = (await call('POST', '/api/assets', { name: 'bench-pb.example', type: 'domain' }, 201)).data.id as string;
    const scriptId = (await call('POST', '/api/actions', { name: 'noop-script', type: 'script', executor: 'local', config: { source: 'return 1' } }, 201)).data.id as string;
    const step = (id: string, next: string | null) => ({ id, name: id, type: 'action', action_ref: scriptId, parameters: {}, on_success: next });
    const triggered = (await call('POST', '/api/playbooks', { name: 'on-finding', version: '1.0.0', trigger: { event: 'finding.new', conditions: {} }, steps: [step('s1', null)] }, 201)).data.id as string;
    const three = (await call('POST', '/api/playbooks', { name: 'three-noops', version: '1.0.0', trigger: { event: 'manual', conditions: {} }, steps: [step('s1', 's2'), step('s2', 's3'), step('s3', null)] }, 201)).data.id as string;
    const started = await t0.ctx.background.registry.start(['worker']);
    console.log(`background: ${started.join(', ')}`);
    const cfg = t0.config;
    let findingNo = 0;
    const finding = () => ({ asset_id: assetId, title: `bench finding ${++findingNo}`, cvss_vector: VECTOR });
    const lastEventId = async () => Number(((await db('events').max({ id: 'id' }).first()) as { id: number | string | null }).id ?? 0);

    // Warm-up: one of each path, not measured.
    await call('POST', '/api/findings', finding(), 201);
    await call('POST', `/api/actions/${scriptId}/trigger`, { parameters: {} }, 202);
    await waitFor(() => startedFirstSteps(db, triggered), 1);
    await waitFor(() => endedDirect(db, scriptId), 1);

    // (1a) Baseline: the same script action triggered directly, same spacing.
    const directSince = Date.now();
    const directRate = await spaced(FINDINGS, SPACING, async () => void (await call('POST', `/api/actions/${scriptId}/trigger`, { parameters: {} }, 202)));
    await waitFor(() => endedDirect(db, scriptId), FINDINGS + 1);
    const direct = await directStartTimes(db, scriptId, directSince);
    console.log(`direct: trigger → started p50 ${fmt(pct(direct, 50))} ms`);

    // (1b) Findings one at a time through the route.
    let after = await lastEventId();
    const findingRate = await spaced(FINDINGS, SPACING, async () => void (await call('POST', '/api/findings', finding(), 201)));
    await waitFor(() => endedRuns(db, triggered), FINDINGS + 1);
    const single = await triggerTimings(db, tenantId, triggered, after, FINDINGS);
    console.log(`spaced findings: event → first step p50 ${fmt(pct(single.map((s) => s.stepMs), 50))} ms`);

    // (1c) Baseline of the burst: BURST direct triggers sent at once (each its own transaction: there is no bulk trigger).
    const burstSince = Date.now();
    await Promise.all(Array.from({ length: BURST }, () => call('POST', `/api/actions/${scriptId}/trigger`, { parameters: {} }, 202)));
    await waitFor(() => endedDirect(db, scriptId), FINDINGS + 1 + BURST);
    const directBurst = await directStartTimes(db, scriptId, burstSince);

    // (1d) A burst: BURST findings in one bulk request (one transaction, BURST events).
    after = await lastEventId();
    const findings = Array.from({ length: BURST }, finding);
    await call('POST', '/api/findings/bulk', { findings }, 201);
    await waitFor(() => endedRuns(db, triggered), FINDINGS + 1 + BURST);
    const burst = await triggerTimings(db, tenantId, triggered, after, BURST);
    console.log(`burst: event → first step p50 ${fmt(pct(burst.map((s) => s.stepMs), 50))} ms`);

    // (2) Runs/s: interleaved rounds, playbook then baseline.
    const rounds: Array<{ pbMs: number; directMs: number }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t = performance.now();
      for (let i = 0; i < RUNS; i++) await call('POST', `/api/playbooks/${three}/run`, {}, 202);
      await waitFor(() => endedRuns(db, three), RUNS * (round + 1));
      const pbMs = performance.now() - t;
      const before = await endedDirect(db, scriptId);
      t = performance.now();
      for (let i = 0; i < 3 * RUNS; i++) await call('POST', `/api/actions/${scriptId}/trigger`, { parameters: {} }, 202);
      await waitFor(() => endedDirect(db, scriptId), before + 3 * RUNS);
      rounds.push({ pbMs, directMs: performance.now() - t });
      console.log(`round ${round + 1}: ${fmt((RUNS * 1000) / pbMs)} playbook runs/s, ${fmt((3 * RUNS * 1000) / rounds.at(-1)!.directMs)} action runs/s`);
    }
    const shape = await runShape(db, three);

    const engine = t0.database.engine === 'mysql' ? 'MariaDB' : 'SQLite';
    const ms = (xs: number[]) => `${fmt(pct(xs, 50))} | ${fmt(pct(xs, 95))} | ${fmt(pct(xs, 99))} | ${fmt(Math.max(...xs))} | ${fmt(xs.reduce((a, b) => a + b, 0) / xs.length)}`;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ratio = (xs: number[], base: number[]) => [pct(xs, 50) / pct(base, 50), mean(xs) / mean(base), pct(xs, 99) / pct(base, 99)].map((r) => r.toFixed(1)).join(' / ');
    const legs = (label: string, xs: TriggerTiming[], base: number[]) => [
      `| ${label}: event → run queued (trigger consumer) | ${ms(xs.map((x) => x.queuedMs))} | |`,
      `| ${label}: **event → first step run \`started_at\`** | ${ms(xs.map((x) => x.stepMs))} | **${ratio(xs.map((x) => x.stepMs), base)}** |`,
      `| ${label}: event → first step's action claimed (script starts) | ${ms(xs.map((x) => x.actionMs))} | ${ratio(xs.map((x) => x.actionMs), base)} |`,
    ];
    const pbRates = rounds.map((r) => (RUNS * 1000) / r.pbMs);
    const directRates = rounds.map((r) => (3 * RUNS * 1000) / r.directMs);
    const ratios = rounds.map((_, i) => (pbRates[i]! * 3) / directRates[i]!);
    const med = (xs: number[]) => pct(xs, 50);
    writeReportSection('playbooks', `Playbooks (${engine})`, [
      `The production defaults of config/default.json for the background's timing (\`events\`, \`executors\`, \`playbooks\`, \`webhooks\`, \`exports\`, \`scans\`; the harness's test config otherwise, e.g. no rate limits): \`events.pollIntervalMs\` ${cfg.events.pollIntervalMs}, \`events.gapGraceMs\` ${cfg.events.gapGraceMs}, \`playbooks.pollIntervalMs\` ${cfg.playbooks.pollIntervalMs}, \`playbooks.concurrency\` ${cfg.playbooks.concurrency}, \`executors.concurrency\` ${cfg.executors.concurrency}, \`executors.perActionConcurrency\` ${cfg.executors.perActionConcurrency}, \`executors.pollIntervalMs\` ${cfg.executors.pollIntervalMs}. The worker role's background runs in this process (\`registry.start(['worker'])\`: ${started.join(', ')}); requests go through \`server.inject\`. The action is \`type: script\`, \`executor: local\`, \`config.source: 'return 1'\` (a fresh isolate per run). Times are the engine's own columns (epoch ms): \`events.created_at\` is stamped inside the committing transaction, so "event →" figures include the rest of that commit.`,
      '',
      '### Trigger latency',
      '',
      `A one-step playbook triggered by \`finding.new\` (no conditions). **Spaced:** ${FINDINGS} findings through \`POST /api/findings\`, one every ${SPACING} ms (achieved ${fmt(findingRate)}/s). **Burst:** ${BURST} findings in one \`POST /api/findings/bulk\` (one transaction, ${BURST} events at once). **Spaced baseline:** ${FINDINGS} direct triggers of the same action through \`POST /api/actions/{id}/trigger\` at the same spacing (achieved ${fmt(directRate)}/s), trigger committed (\`action_executions.created_at\`) → claimed (\`started_at\`): the same script reaching the same action worker, without the two hops a playbook adds (the outbox consumer, the run worker). Ratio = playbook figure / baseline figure at the same percentile (and of the means); the columns are whole milliseconds, so a 1 ms baseline makes the p50 ratio coarse.`,
      '',
      '| measurement | p50 ms | p95 ms | p99 ms | max ms | mean ms | ratio to baseline: p50 / mean / p99 |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...legs('spaced', single, direct),
      `| baseline (spaced): direct trigger → action claimed | ${ms(direct)} | 1.00 |`,
      ...legs('burst', burst, directBurst),
      `| baseline (burst): ${BURST} direct triggers sent at once → action claimed | ${ms(directBurst)} | 1.00 |`,
      '',
      '### Runs per second',
      '',
      `A three-step playbook (s1 → s2 → s3, each the same no-op script action), run by hand with \`POST /api/playbooks/{id}/run\` ${RUNS} times one after the other, first request → last run ended (\`playbook_runs\` read every 10 ms); then the baseline: ${3 * RUNS} direct triggers of the same action through its route, first request → last ended. ${ROUNDS} interleaved rounds. Ratio = playbook runs/s × 3 / action runs/s.`,
      '',
      '| measurement | runs/s (median) | per round | ratio (medians) | ratio per round |',
      '|---|---:|---:|---:|---:|',
      `| three-step playbook runs | ${fmt(med(pbRates))} | ${pbRates.map(fmt).join(', ')} | **${((med(pbRates) * 3) / med(directRates)).toFixed(2)}** | ${ratios.map((r) => r.toFixed(2)).join(', ')} |`,
      `| baseline: direct action runs | ${fmt(med(directRates))} | ${directRates.map(fmt).join(', ')} | 1.00 | |`,
      '',
      `| per run of the three-step playbook (all ${ROUNDS * RUNS}) | p50 ms | p95 ms | p99 ms | max ms | mean ms |`,
      '|---|---:|---:|---:|---:|---:|',
      `| run created → ended | ${ms(shape.runMs)} |`,
      `| one step's action ended → the next step's action claimed | ${ms(shape.gapMs)} |`,
      `| a step's action claimed → ended (the action engine's own time) | ${ms(shape.actionMs)} |`,
      '',
      `Outcomes: triggered playbook ${await runOutcomes(db, triggered)}; three-step playbook ${await runOutcomes(db, three)}.`,
    ]);
  } finally {
    await t0.close();
  }
}

await main();
