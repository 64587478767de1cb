import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load-config.ts';
import { createApp } from '../core/app.ts';
import { routePlugins } from '../plugins/index.ts';
import { OutboundHttpClient } from '../core/outbound/http-client.ts';
import { sharedTestCertificates } from '../test/_helpers/certificates/certs.ts';
import { startHttpsReceiver } from '../test/_helpers/receivers/https-receiver.ts';
import { createTestDatabase } from '../test/_helpers/harness/test-db.ts';

/**
 * Issue 7 benchmark (a): events per second from the outbox to a loopback HTTPS webhook
 * receiver with signatures, next to a bare baseline in the same run: an unsigned raw
 * POST loop through the same pooled outbound client with the same concurrency.
 *
 *   npm run bench -- webhooks [--events=20000] [--live=300] (3000 events took under 2 s, too short for a steady ratio)
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/test npm run bench -- webhooks
 *
 * Phases: (1) backlog: N events already in the outbox, time from start() until the
 * receiver has all N; (2) live: events emitted one transaction each, publish-to-receive
 * latency p50/p99; (3) baseline: N raw POSTs of a body of the same size.
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const N = arg('events', 20_000);
const LIVE = arg('live', 300);
// Below the measured capacity, so the latency is the pipeline's own, not queueing.
const LIVE_INTERVAL_MS = 20;
const CONCURRENCY = 16;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : 'n/a');

async function main(): Promise<void> {
  const { ca } = await sharedTestCertificates();
  const receiver = await startHttpsReceiver();
  const database = await createTestDatabase();
  const config = loadConfig({
    env: { NODE_ENV: 'test' },
    overrides: {
      database: { url: database.url },
      outbound: { caCerts: [ca.certPem] },
      events: { pollIntervalMs: 50, gapGraceMs: 500, consumerLeaseMs: 30000 },
      webhooks: { concurrency: CONCURRENCY, batchSize: 200, workerPollIntervalMs: 50, requestTimeoutMs: 10000, leaseMs: 30000 },
      http: { validateResponses: false },
    },
  });
  const app = await createApp(config, { routes: routePlugins });
  const ctx = app.ctx;
  const tenant = await ctx.services.admin.createTenant({ name: 'bench', tier: 'enterprise' });
  await ctx.services.webhooks.create(tenant.id, { name: 'bench', url: `${receiver.origin}/hook`, events: ['finding.new'], secret: SECRET });
  const data = (i: number) => ({
    finding_id: `fnd_${String(i).padStart(26, '0')}`, title: 'TLS 1.0 enabled', severity: 'medium', cvss: 5.3,
    asset: { id: 'ast_00000000000000000000000000', name: 'shop.example.com', type: 'domain' }, scan_id: 'scn_00000000000000000000000000',
  });

  // (1) backlog
  for (let i = 0; i < N; i += 500) {
    await ctx.outbox.transaction(async ({ emit }) => {
      for (let j = i; j < Math.min(N, i + 500); j++) await emit({ tenantId: tenant.id, kind: 'finding.new', data: data(j) });
    });
  }
  let started = performance.now();
  await app.start();
  await receiver.waitFor(N, 600_000);
  const backlogSeconds = (performance.now() - started) / 1000;
  const signed = receiver.requests[0]!;
  if (!signed.headers['x-svc-signature'] || !signed.headers['webhook-signature']) throw new Error('deliveries were not signed');
  const bodyBytes = Buffer.byteLength(signed.body);

  // (2) live latency: the event's own timestamp to its arrival at the receiver
  const before = receiver.requests.length;
  for (let i = 0; i < LIVE; i++) {
    await ctx.outbox.transaction(({ emit }) => emit({ tenantId: tenant.id, kind: 'finding.new', data: data(N + i) }));
    await new Promise((r) => setTimeout(r, LIVE_INTERVAL_MS));
  }
  await receiver.waitFor(before + LIVE, 600_000);
  const latencies = receiver.requests.slice(before).map((r) => r.receivedAt - Date.parse(JSON.parse(r.body).timestamp)).sort((a, b) => a - b);
  await app.stop();

  // (3) baseline: the same client, unsigned raw POSTs, same concurrency and body size
  const client = new OutboundHttpClient({ ...config.outbound, userAgent: 'bench' });
  const body = signed.body;
  let next = 0;
  started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        next += 1;
        await client.request({ method: 'POST', url: `${receiver.origin}/raw`, headers: { 'content-type': 'application/json' }, body });
      }
    }),
  );
  const baselineSeconds = (performance.now() - started) / 1000;
  await client.close();
  await receiver.close();
  await database.drop();

  const webhookRate = N / backlogSeconds;
  const baselineRate = N / baselineSeconds;
  const engine = database.engine === 'mysql' ? 'MariaDB' : 'SQLite';
  const lines = [
    `## Webhooks: outbox to a loopback HTTPS receiver (${engine})`,
    '',
    `Run ${new Date().toISOString()} on ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')} at the end (other work on the machine skews both rows alike). ${N} \`finding.new\` events, body ${bodyBytes} bytes, signed (X-SVC-Signature + Standard Webhooks), worker concurrency ${CONCURRENCY}, one keep-alive pool.`,
    '',
    '| measurement | events/s | seconds | ratio to baseline |',
    '|---|---|---|---|',
    `| webhooks: outbox backlog → dispatcher → delivery rows → signed HTTPS POST → attempt recorded | ${fmt(webhookRate)} | ${backlogSeconds.toFixed(2)} | ${(webhookRate / baselineRate).toFixed(2)} |`,
    `| baseline: unsigned raw POST loop, same client and concurrency | ${fmt(baselineRate)} | ${baselineSeconds.toFixed(2)} | 1.00 |`,
    '',
    `Live publish-to-receive latency over ${LIVE} events emitted one transaction each, one every ${LIVE_INTERVAL_MS} ms: p50 ${fmt(pct(latencies, 50))} ms, p99 ${fmt(pct(latencies, 99))} ms.`,
    '',
    'The difference to the baseline is the durable bookkeeping per event: a delivery row insert, a leased claim, and one transaction per attempt (delivery update + attempt row), plus two HMACs.',
    '',
  ];
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'reports');
  mkdirSync(dir, { recursive: true });
  // One section per engine; a run replaces its own engine's section and keeps the other.
  const file = join(dir, 'webhooks.md');
  const header = '# Benchmark: webhook delivery (issue 7a)\n\nGenerated by `bench/webhooks.ts` (`npm run bench -- webhooks`, with DATABASE_URL for MariaDB); each run replaces its engine\'s section.\n\n';
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const sections = old.split(/^(?=## )/m).filter((x) => x.startsWith('## ') && !x.startsWith(lines[0]!));
  writeFileSync(file, header + [lines.join('\n'), ...sections].map((x) => x.trimEnd()).join('\n\n') + '\n');
  console.log(lines.join('\n'));
  console.log(`report: ${file}`);
}

await main();
