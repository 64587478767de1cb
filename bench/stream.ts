import http from 'node:http';
import { loadavg } from 'node:os';
import net from 'node:net';
import { loadConfig } from '../config/load-config.ts';
import { createApp } from '../core/app.ts';
import { routePlugins } from '../plugins/index.ts';
import { TENANT_SCOPES } from '../core/domain/scopes.ts';
import { createTestDatabase } from '../test/_helpers/harness/test-db.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * Issue 7 benchmark (b): 200 concurrent SSE clients on /api/events/stream,
 * publish-to-receive latency (p50/p99 over every client × event) and fan-out
 * throughput, next to a bare baseline in the same run: a plain node:http SSE server
 * that writes each published message straight to the same number of responses.
 *
 *   npm run bench -- stream [--clients=200] [--events=200] [--burst=2000]
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/test npm run bench -- stream
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const CLIENTS = arg('clients', 200);
const EVENTS = arg('events', 200);
const BURST = arg('burst', 2000);
const INTERVAL_MS = 20;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : 'n/a');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A lean SSE client: records when each `id:` arrives; `data` carries the sequence number. */
interface Client {
  received: Map<number, number>;
  close(): void;
}

function connect(url: string, headers: Record<string, string>): Promise<Client> {
  return new Promise((resolve, reject) => {
    const received = new Map<number, number>();
    const agent = new http.Agent({ keepAlive: false });
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const seq = /"seq":(\d+)/.exec(block);
          if (seq) received.set(Number(seq[1]), now);
        }
      });
      resolve({ received, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

/** `publish` sends the given sequence numbers as one unit (one outbox transaction for Rampart). */
async function measure(clients: Client[], publish: (seqs: number[]) => Promise<void>, seqBase: number): Promise<{ p50: number; p99: number; perSecond: number; burstSeconds: number }> {
  const sentAt = new Map<number, number>();
  for (let i = 0; i < EVENTS; i++) {
    const seq = seqBase + i;
    sentAt.set(seq, performance.now());
    await publish([seq]);
    await sleep(INTERVAL_MS);
  }
  const lastLive = seqBase + EVENTS - 1;
  while (!clients.every((c) => c.received.has(lastLive))) await sleep(10);
  const latencies: number[] = [];
  for (const c of clients) for (const [seq, at] of sentAt) latencies.push((c.received.get(seq) ?? NaN) - at);
  latencies.sort((a, b) => a - b);
  // Burst: BURST events in transactions of 100 (so the database commit rate does not cap
  // it); time until every client has all of them.
  const burstBase = seqBase + EVENTS;
  const started = performance.now();
  for (let i = 0; i < BURST; i += 100) await publish(Array.from({ length: Math.min(100, BURST - i) }, (_, j) => burstBase + i + j));
  const last = burstBase + BURST - 1;
  while (!clients.every((c) => c.received.has(last))) await sleep(5);
  const burstSeconds = (performance.now() - started) / 1000;
  return { p50: pct(latencies, 50), p99: pct(latencies, 99), perSecond: (BURST * clients.length) / burstSeconds, burstSeconds };
}

async function rampart(): Promise<{ p50: number; p99: number; perSecond: number; burstSeconds: number; engine: string }> {
  const database = await createTestDatabase();
  const config = loadConfig({
    env: { NODE_ENV: 'test' },
    overrides: {
      database: { url: database.url },
      http: { validateResponses: false },
      stream: { heartbeatMs: 30000 },
      events: { pollIntervalMs: 1000, gapGraceMs: 500, consumerLeaseMs: 30000 },
      rateLimit: { tiers: { enterprise: { perMinute: 1000000, burst: 1000000, streams: CLIENTS + 10 } } },
    },
  });
  const app = await createApp(config, { routes: routePlugins });
  await app.start();
  try {
    const tenant = await app.ctx.services.admin.createTenant({ name: 'bench', tier: 'enterprise' });
    const { token } = await app.ctx.services.admin.createToken(tenant.id, { name: 'bench', scopes: TENANT_SCOPES, expiresAt: null });
    const url = `${app.server.info.uri}/api/events/stream`;
    const clients: Client[] = [];
    for (let i = 0; i < CLIENTS; i++) clients.push(await connect(url, { authorization: `Bearer ${token}` }));
    const publish = async (seqs: number[]) => {
      await app.ctx.outbox.transaction(async ({ emit }) => {
        for (const seq of seqs) await emit({ tenantId: tenant.id, kind: 'scan.progress', data: { scan_id: 'scn_bench', progress: seq % 100, phase: 'bench', seq } });
      });
    };
    const result = await measure(clients, publish, 0);
    for (const c of clients) c.close();
    return { ...result, engine: database.url.startsWith('sqlite') ? 'SQLite' : 'MariaDB' };
  } finally {
    await app.stop();
    await database.drop();
  }
}

async function baseline(): Promise<{ p50: number; p99: number; perSecond: number; burstSeconds: number }> {
  const responses = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('retry: 5000\n\n');
    responses.add(res);
    req.on('close', () => responses.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS; i++) clients.push(await connect(`http://127.0.0.1:${port}/`, {}));
  let id = 0;
  const publish = async (seqs: number[]) => {
    for (const seq of seqs) {
      id += 1;
      const text = `event: scan.progress\nid: ${id}\ndata: ${JSON.stringify({ scan_id: 'scn_bench', progress: seq % 100, phase: 'bench', seq })}\n\n`;
      for (const res of responses) res.write(text);
    }
  };
  const result = await measure(clients, publish, 0);
  for (const c of clients) c.close();
  for (const res of responses) res.end();
  await new Promise<void>((r) => server.close(() => r()));
  return result;
}

async function main(): Promise<void> {
  const load = loadavg()[0]!;
  const r = await rampart();
  const b = await baseline();
  const lines = [
    `${CLIENTS} concurrent SSE clients of one tenant (real sockets, loopback); ${EVENTS} \`scan.progress\` events published one per ${INTERVAL_MS} ms for latency (every client × event = ${CLIENTS * EVENTS} samples), then a burst of ${BURST} events (transactions of 100) for throughput.`,
    '',
    '| measurement | latency p50 ms | latency p99 ms | burst messages delivered/s | burst seconds |',
    '|---|---|---|---|---|',
    `| Rampart: outbox transaction → bus wake → shared hub read → fan-out → SSE | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.perSecond)} | ${r.burstSeconds.toFixed(2)} |`,
    `| baseline: bare node:http SSE server writing each message to every response | ${fmt(b.p50)} | ${fmt(b.p99)} | ${fmt(b.perSecond)} | ${b.burstSeconds.toFixed(2)} |`,
    '',
    `Ratio (Rampart / baseline): p50 ${fmt(r.p50 / b.p50)}×, throughput ${(r.perSecond / b.perSecond).toFixed(2)}×. Rampart's latency includes the database commit of each event and one events-table read per wake-up, shared by all ${CLIENTS} connections.`,
  ];
  lines.push('', `1-minute load average when the run started: ${load.toFixed(1)} (the machine is shared; figures from a loaded machine are pessimistic for both rows).`);
  for (const l of lines) console.log(l);
  writeReportSection('stream', r.engine, lines);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
