import { spawn } from 'node:child_process';
import { createServer, Socket, type Server } from 'node:net';
import { scanPorts } from '../scanners/_lib/tcp-connect.ts';
import { createTestApp } from '../test/_helpers/harness/test-app.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * 1. Full 1-65535 TCP connect scan of 127.0.0.1 with a handful of extra listeners:
 *    Rampart's port scanner (scanPorts, 400 connects in flight) next to
 *    `nmap -sT -p- -n -Pn 127.0.0.1`; same open ports? wall-time ratio.
 * 2. End to end: 200 queued `port` scans of small port lists (one asset each), from the
 *    first POST /api/scan/create to the last completed scan: scans per minute.
 */
const CONCURRENCY = Number(process.env.BENCH_PORT_CONCURRENCY ?? 400);
const SCANS = Number(process.env.BENCH_SCANS ?? 200);

async function listener(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => {
    s.on('error', () => undefined);
    s.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

function nmap(): Promise<{ ports: number[]; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('nmap', ['-sT', '-p-', '-n', '-Pn', '-oG', '-', '127.0.0.1']);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`nmap exited ${code}`));
      const ports = [...out.matchAll(/(\d+)\/open\/tcp/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
      resolve({ ports, ms: performance.now() - started });
    });
  });
}

/**
 * The runtime's floor: the same 65535 connects with bare net.Socket objects (no timeout,
 * no abort wiring, no bookkeeping). What separates Rampart from nmap beyond this is ours;
 * the rest is the cost of a Node socket per connect.
 */
async function bareSocketLoop(ports: number[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  const one = (port: number) =>
    new Promise<void>((resolve) => {
      const s = new Socket();
      const done = () => {
        s.destroy();
        resolve();
      };
      s.once('connect', done);
      s.once('error', done);
      s.connect(port, '127.0.0.1');
    });
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < ports.length) await one(ports[next++]!);
  }));
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ROUNDS = Number(process.env.BENCH_PORT_ROUNDS ?? 3);

async function portScanComparison(): Promise<string[]> {
  const extra = await Promise.all(Array.from({ length: 5 }, listener));
  try {
    const all = Array.from({ length: 65535 }, (_, i) => i + 1);
    // Interleaved rounds, medians: the machine's load moves between runs, not within a round.
    const oursRuns: number[] = [];
    const bareRuns: number[] = [];
    const nmapRuns: number[] = [];
    let ours!: Awaited<ReturnType<typeof scanPorts>>;
    let theirs: { ports: number[]; ms: number } | null = null;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      ours = await scanPorts('127.0.0.1', all, { concurrency: CONCURRENCY, timeoutMs: 1500 });
      oursRuns.push(performance.now() - started);
      bareRuns.push(await bareSocketLoop(all));
      try {
        theirs = await nmap();
        nmapRuns.push(theirs.ms);
      } catch (err) {
        return [`nmap could not run (${(err as Error).message}); install it with \`apt-get install -y nmap\`.`, '', `Rampart: ${ours.open.length} open ports in ${(oursRuns[0]! / 1000).toFixed(2)} s.`];
      }
    }
    const oursMs = median(oursRuns);
    const bareMs = median(bareRuns);
    const nmapMs = median(nmapRuns);
    theirs = theirs!;
    const onlyOurs = ours.open.filter((p) => !theirs!.ports.includes(p));
    const onlyTheirs = theirs.ports.filter((p) => !ours.open.includes(p));
    const listeners = extra.map((e) => e.port);
    return [
      '### Full connect scan of 127.0.0.1 (ports 1-65535)',
      '',
      `${ROUNDS} interleaved rounds, median wall time per scanner.`,
      '',
      '| scanner | open ports | wall time (median) | runs |',
      '|---|---:|---:|---|',
      `| Rampart port scanner (${CONCURRENCY} in flight, 1.5 s timeout) | ${ours.open.length} | ${(oursMs / 1000).toFixed(2)} s | ${oursRuns.map((m) => (m / 1000).toFixed(2)).join(', ')} |`,
      `| bare Node net.Socket connect loop (${CONCURRENCY} in flight, nothing else) | — | ${(bareMs / 1000).toFixed(2)} s | ${bareRuns.map((m) => (m / 1000).toFixed(2)).join(', ')} |`,
      `| nmap -sT -p- -n -Pn | ${theirs.ports.length} | ${(nmapMs / 1000).toFixed(2)} s | ${nmapRuns.map((m) => (m / 1000).toFixed(2)).join(', ')} |`,
      '',
      `Time ratio Rampart / nmap: **${(oursMs / nmapMs).toFixed(2)}**; Rampart / bare Node socket loop: **${(oursMs / bareMs).toFixed(2)}** (the floor of one Node socket per connect is ${(bareMs / nmapMs).toFixed(2)}× nmap).`,
      '',
      `The 5 benchmark listeners (${listeners.join(', ')}) found by Rampart: ${listeners.every((p) => ours.open.includes(p)) ? 'all' : 'NOT all'}; by nmap: ${listeners.every((p) => theirs!.ports.includes(p)) ? 'all' : 'NOT all'}.`,
      `Same open ports: ${!onlyOurs.length && !onlyTheirs.length ? '**yes**' : `no: only Rampart ${JSON.stringify(onlyOurs)}, only nmap ${JSON.stringify(onlyTheirs)} (other processes on this machine open and close loopback listeners while the scans run; the two scans are not simultaneous)`}.`,
      `Rampart closed/filtered: ${ours.closed}/${ours.filtered}; self-connects dropped as closed.`,
    ];
  } finally {
    extra.forEach((e) => e.server.close());
  }
}

async function endToEnd(): Promise<{ engine: string; lines: string[] }> {
  const targets = await Promise.all(Array.from({ length: 3 }, listener));
  const ports = targets.map((t) => t.port).join(',');
  const t0 = await createTestApp({
    http: { validateResponses: false },
    plugins: { builtin: ['port'], external: [], baseDir: '.' },
    scans: { worker: { concurrency: 8, pollIntervalMs: 100, leaseMs: 30000, heartbeatMs: 1000 }, pool: { maxThreads: 4, checkConcurrency: 1 }, progressIntervalMs: 2000 },
  });
  try {
    const assets: string[] = [];
    for (let i = 0; i < SCANS; i++) {
      const res = await t0.request('POST', '/api/assets', { payload: { name: `127.0.${Math.floor(i / 250)}.${(i % 250) + 1}`, type: 'ip' } });
      assets.push(res.body.data.id);
    }
    // Queue everything first (worker stopped), then measure the worker draining the queue.
    const queuedAt = performance.now();
    for (const id of assets) {
      const res = await t0.request('POST', '/api/scan/create', { payload: { asset_id: id, scan_type: 'port', options: { ports: `${ports},22,80,443` } } });
      if (res.statusCode !== 201) throw new Error(res.raw);
    }
    const queueMs = performance.now() - queuedAt;
    const started = performance.now();
    await t0.ctx.background.scans.start(['worker']);
    for (;;) {
      const left = Number(((await t0.ctx.db('scans').whereIn('status', ['queued', 'running']).count({ n: '*' }).first()) as { n: number }).n);
      if (!left) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ms = performance.now() - started;
    const outcome = (await t0.ctx.db('scans').groupBy('status').select('status', t0.ctx.db.raw('count(*) as n'))) as Array<{ status: string; n: number }>;
    return {
      engine: t0.database.engine === 'mysql' ? 'MariaDB' : 'SQLite',
      lines: [
        `### ${SCANS} queued port scans end to end (${t0.database.engine === 'mysql' ? 'MariaDB' : 'SQLite'})`,
        '',
        `Each scan: one asset (127.0.x.y), ports \`<3 listeners>,22,80,443\`; worker concurrency 8, piscina pool 4 threads.`,
        '',
        `| measure | value |`,
        `|---|---:|`,
        `| queueing ${SCANS} scans through POST /api/scan/create | ${(queueMs / 1000).toFixed(1)} s |`,
        `| draining the queue (claim, plan, run, record, finish) | ${(ms / 1000).toFixed(1)} s |`,
        `| **scans per minute** | **${((SCANS / ms) * 60_000).toFixed(0)}** |`,
        `| outcomes | ${outcome.map((o) => `${o.status} ${Number(o.n)}`).join(', ')} |`,
      ],
    };
  } finally {
    await t0.close();
    targets.forEach((t) => t.server.close());
  }
}

const e2e = await endToEnd();
console.log(e2e.lines.join('\n'));
writeReportSection('scan-engine', `End to end (${e2e.engine})`, e2e.lines);
if (!process.env.DATABASE_URL?.startsWith('mysql')) {
  const lines = await portScanComparison();
  console.log(lines.join('\n'));
  writeReportSection('scan-engine', 'Port scanner vs nmap', lines);
}
