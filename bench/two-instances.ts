import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sharedTestCertificates } from '../test/_helpers/certificates/certs.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../test/_helpers/receivers/https-receiver.ts';
import { createTenant, startCluster, type Cluster } from '../test/reliability/two-instances/instances.ts';

/**
 * Issue 16: one Rampart process vs two (`--role api,worker` each) on one MariaDB and one
 * Redis, the topology of docs/operations.md "More than one machine".
 *
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/test npm run bench -- two-instances [--duration=5] [--connections=16]
 *
 * Per topology: autocannon with the same total connections (two clients of half each,
 * one per instance, for two instances) on a read route (GET /api/findings) and a write
 * route (POST /api/findings: a finding, its event and a webhook delivery to a loopback
 * HTTPS receiver). Then every event is waited for at the receiver and deliveries per
 * event id counted: duplicates must be 0.
 */
const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const DURATION = arg('duration', 5);
const CONNECTIONS = arg('connections', 16);
const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Cannon = (options: { url: string; connections: number; duration: number; method?: string; headers?: Record<string, string>; body?: string }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

interface Row {
  topology: string;
  route: string;
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

async function measure(cluster: Cluster, token: string, route: 'read' | 'write', assetId: string): Promise<Omit<Row, 'topology'>> {
  const each = Math.max(1, Math.floor(CONNECTIONS / cluster.instances.length));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const options = route === 'read'
    ? { method: 'GET', path: '/api/findings?per_page=20' }
    : { method: 'POST', path: '/api/findings', body: JSON.stringify({ asset_id: assetId, title: 'Bench finding', cvss_vector: VECTOR }) };
  const results = await Promise.all(cluster.instances.map((i) => autocannon({ url: i.base + options.path, method: options.method, body: options.body, headers, connections: each, duration: DURATION })));
  return {
    route: `${options.method} ${options.path}`,
    rps: results.reduce((s, r) => s + r.requests.average, 0),
    // The slower client's figures: what the worse-placed user sees.
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    failed: results.reduce((s, r) => s + r.non2xx + r.errors, 0),
  };
}

async function topology(count: number, receiver: HttpsReceiver, caPem: string): Promise<{ rows: Row[]; events: number; duplicates: number }> {
  const cluster = await startCluster({ RAMPART__outbound__caCerts: JSON.stringify([caPem]), RAMPART__http__validateResponses: 'false' }, count);
  try {
    const first = cluster.instances[0]!;
    const { tenantId, token } = await createTenant(first, cluster.adminToken, 'bench', 'enterprise');
    const asset = (await first.request('POST', '/api/assets', token, { name: 'bench.example.com', type: 'domain' })).body.data;
    const hook = await first.request('POST', '/api/webhooks', token, { name: 'bench', url: `${receiver.origin}/${tenantId}`, events: ['finding.new'] });
    if (hook.status !== 201) throw new Error(JSON.stringify(hook.body));
    // Warm-up (JIT, pools), not counted.
    await Promise.all(cluster.instances.map((i) => autocannon({ url: `${i.base}/api/findings?per_page=20`, headers: { authorization: `Bearer ${token}` }, connections: 2, duration: 1 })));
    const name = count === 1 ? 'one instance' : `${count} instances`;
    const rows: Row[] = [];
    for (const route of ['read', 'write'] as const) rows.push({ topology: name, ...(await measure(cluster, token, route, asset.id)) });
    const total = (await first.request('GET', '/api/findings?per_page=1', token)).body.meta.total as number;
    const mine = () => receiver.requests.filter((r) => r.path === `/${tenantId}`);
    await receiver.waitFor(receiver.requests.length - mine().length + total, 300_000);
    await new Promise((r) => setTimeout(r, 2000)); // a duplicate would show up meanwhile
    const perEvent = new Map<string, number>();
    for (const r of mine()) {
      const id = String(JSON.parse(r.body).id);
      perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
    }
    return { rows, events: perEvent.size, duplicates: [...perEvent.values()].reduce((s, c) => s + c - 1, 0) };
  } finally {
    await cluster.close();
  }
}

async function main(): Promise<void> {
  if (!/^(mysql|mariadb):/.test(process.env.DATABASE_URL ?? '')) {
    console.error('two-instances needs a shared MariaDB: set DATABASE_URL=mysql://…');
    process.exit(2);
  }
  const { ca } = await sharedTestCertificates();
  const receiver = await startHttpsReceiver();
  const one = await topology(1, receiver, ca.certPem);
  const two = await topology(2, receiver, ca.certPem);
  await receiver.close();

  const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
  const table = [...one.rows, ...two.rows].map((r) => {
    const base = one.rows.find((o) => o.route === r.route)!;
    return `| ${r.route} | ${r.topology} | ${fmt(r.rps)} | ${(r.rps / base.rps).toFixed(2)} | ${r.p50} | ${r.p99} | ${(r.p99 / Math.max(1, base.p99)).toFixed(2)} | ${r.failed} |`;
  });
  const lines = [
    `_Run ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} · load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}_`,
    '',
    `Each topology: \`--role api,worker\` processes on one fresh MariaDB database and one Redis (shared rate limiter; budgets huge so nothing is refused), autocannon ${CONNECTIONS} connections for ${DURATION} s per route (two clients of ${CONNECTIONS / 2}, one per instance, for two instances), after a 1 s warm-up. Every write emits \`finding.new\`, delivered to a loopback HTTPS webhook receiver; deliveries counted per event id after the load. **Everything shares this machine's cores** (both instances, MariaDB, Redis, autocannon, the receiver): the ratio shows what a second process adds on one host, not what a second machine would.`,
    '',
    '| route | topology | req/s | req/s ratio two/one | p50 ms | p99 ms | p99 ratio | non-2xx + errors |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...table,
    '',
    'All writes go to one asset, so they queue on its row lock (its risk is recomputed in each write transaction): the write row measures contention on one hot record, which a second process cannot relieve. The load average above says how busy the shared machine was; rerun on a quiet one before reading much into the ratios.',
    '',
    `Webhook deliveries: one instance ${one.events} events, ${one.duplicates} duplicates; two instances ${two.events} events, **${two.duplicates} duplicates**.`,
  ];
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'reports');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'two-instances.md');
  const header = '# Benchmark: two instances on one MariaDB and one Redis (issue 16)\n\nWritten by `bench/two-instances.ts` (`DATABASE_URL=mysql://… npm run bench -- two-instances`); each run replaces the report (MariaDB only: two instances need a shared database).\n\n';
  writeFileSync(file, header + lines.join('\n') + '\n');
  console.log(lines.join('\n'));
  console.log(`report: ${file}`);
  if (one.duplicates || two.duplicates) process.exit(1);
}

await main();
