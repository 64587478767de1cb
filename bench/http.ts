import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileTables, type CpuProfile } from './_lib/cpu-profile.ts';
import type { ServerInfo } from './_lib/http-servers.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * Issue 17 §1: Rampart's authenticated request path against a bare hapi server doing
 * the same SQL, in one run. Scenarios: `GET /api/assets/{id}`, `GET /api/findings?…`
 * (a page of 20) and `PUT /api/findings/{id}/status` (moves 20 findings between open
 * and confirmed). Both servers live in one child process (bench/_lib/http-servers.ts)
 * on one fresh database; autocannon runs here, so the servers get a core of their own.
 * Rounds are interleaved (bare and Rampart alternate first) so background load on the
 * machine hits both alike. Then a CPU profile of Rampart under the GET load.
 *
 *   npm run bench -- http [--duration=8] [--connections=50] [--rounds=3] [--profile=8]
 *                         [--engine=sqlite|mysql] [--profile-label=after]
 *   MariaDB: DATABASE_URL=mysql://…, else mysql://root@127.0.0.1:3306/test when it answers.
 */
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const num = (name: string, fallback: number) => Number(arg(name) ?? fallback);
const DURATION = num('duration', 8);
const CONNECTIONS = num('connections', 50);
const ROUNDS = num('rounds', 3);
const PROFILE_SECONDS = num('profile', 8);
const PROFILE_LABEL = arg('profile-label') ?? 'current code';
const DEFAULT_MYSQL = 'mysql://root@127.0.0.1:3306/test';
const here = dirname(fileURLToPath(import.meta.url));

interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface CannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (req: CannonRequest) => CannonRequest;
}
type Cannon = (options: { url: string; connections: number; duration: number; headers?: Record<string, string>; requests?: CannonRequest[] }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Cannon;

interface Scenario {
  name: string;
  requests(info: ServerInfo): CannonRequest[];
}

const SCENARIOS: Scenario[] = [
  { name: 'GET /api/assets/{id}', requests: (info) => [{ method: 'GET', path: `/api/assets/${info.assetId}` }] },
  { name: 'GET /api/findings (page of 20)', requests: (info) => [{ method: 'GET', path: `/api/findings?${info.listQuery}` }] },
  {
    name: 'PUT /api/findings/{id}/status',
    requests(info) {
      // Every request moves the next of 20 findings to the other status (open ⇄ confirmed).
      let i = 0;
      return [{
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        setupRequest(req) {
          const n = i++;
          const id = info.findingIds[n % info.findingIds.length]!;
          const status = Math.floor(n / info.findingIds.length) % 2 === 0 ? 'confirmed' : 'open';
          return { ...req, path: `/api/findings/${id}/status`, body: JSON.stringify({ status }) };
        },
      }];
    },
  },
];

interface Servers {
  child: ChildProcess;
  info: ServerInfo;
  ask<T>(message: object, key: string): Promise<T>;
}

function startServers(databaseUrl: string | undefined, onlyRampart: boolean): Promise<Servers> {
  const env = { ...process.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const child = fork(join(here, '_lib', 'http-servers.ts'), onlyRampart ? ['--only-rampart'] : [], {
    execArgv: ['--no-node-snapshot', '--import', 'tsx'],
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(message: object, key: string) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`server process exited (${code})`));
      const onMessage = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m[key] as T);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (Object.keys(message).length) child.send(message);
    });
  return ask<ServerInfo>({}, 'ready').then((info) => ({ child, info, ask }));
}

async function stopServers(servers: Servers): Promise<void> {
  const exited = new Promise((resolve) => servers.child.once('exit', resolve));
  servers.child.send({ stop: true });
  await exited;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** The server process's CPU time per request, µs (both servers share the process; only one is loaded at a time). */
  cpu: number;
  /** Answers other than 2xx, and connection errors: counted, shown, never hidden. */
  failed: number;
  total: number;
}

async function load(servers: Servers, base: string, scenario: Scenario, duration: number): Promise<Measured> {
  const headers = { authorization: `Bearer ${servers.info.token}` };
  const before = await servers.ask<NodeJS.CpuUsage>({ cpu: true }, 'cpu');
  const result = await autocannon({ url: base, connections: CONNECTIONS, duration, headers, requests: scenario.requests(servers.info) });
  const after = await servers.ask<NodeJS.CpuUsage>({ cpu: true }, 'cpu');
  const failed = result.non2xx + result.errors;
  if (failed) console.log(`  ${base === servers.info.bare ? 'bare' : 'Rampart'} ${scenario.name}: ${result.non2xx} non-2xx ${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors`);
  const cpu = after.user + after.system - before.user - before.system;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu: cpu / Math.max(1, result.requests.total), failed, total: result.requests.total };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f0 = (x: number) => x.toFixed(0);
const sum = (ms: Measured[], key: 'failed' | 'total') => ms.reduce((n, m) => n + m[key], 0);

async function runEngine(databaseUrl: string | undefined): Promise<void> {
  const servers = await startServers(databaseUrl, false);
  const { info } = servers;
  const runs = new Map<string, { bare: Measured[]; rampart: Measured[] }>(SCENARIOS.map((s) => [s.name, { bare: [], rampart: [] }]));
  try {
    for (const scenario of SCENARIOS) {
      // Warm-up: JIT, statement caches, connection pools.
      await load(servers, info.bare, scenario, 1);
      await load(servers, info.rampart, scenario, 1);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of SCENARIOS) {
        const order = round % 2 === 0 ? (['bare', 'rampart'] as const) : (['rampart', 'bare'] as const);
        for (const side of order) {
          const m = await load(servers, side === 'bare' ? info.bare : info.rampart, scenario, DURATION);
          runs.get(scenario.name)![side].push(m);
          console.log(`${info.engine} round ${round + 1} ${side.padEnd(7)} ${scenario.name}: ${f0(m.rps)} req/s, p50 ${m.p50} ms, ${f0(m.cpu)} µs CPU/request`);
        }
      }
    }
  } finally {
    await stopServers(servers);
  }
  const lines = [
    `autocannon, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION} s per server and scenario (after 1 s warm-up each), medians; ` +
      `servers in one child process, autocannon in the parent. Data: one tenant, 20 assets, ${info.findingCount} findings. ` +
      `**Rampart** runs the production configuration (config/default.json: bearer token, rate limiter on with the memory store and budgets too large to refuse, ` +
      `response validation off, info access logs written to /dev/null). **bare** is hapi with no auth, limiter, validation or logs, running Rampart's own SQL ` +
      `(from its repositories' knex builders) through ${info.engine === 'SQLite' ? 'better-sqlite3 statements prepared once' : 'mysql2 `execute` (server-side prepared statements), pool of 10'}: ` +
      `the asset row by tenant and id; the findings page as Rampart builds it (count + page of 20 with asset name and type, \`?${info.listQuery}\`); ` +
      `for the status change one transaction reading the finding${info.engine === 'MariaDB' ? ' FOR UPDATE' : ''} and updating its status ` +
      `(Rampart also writes the history row, the event, the asset's risk and the change clocks). ` +
      `**CPU µs/request** is the server process's CPU time per request: robust against other work on the machine, which moves req/s ` +
      `(load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')})${info.engine === 'MariaDB' ? "; MariaDB's own CPU is not in it" : ''}.`,
    '',
    '| scenario | bare req/s | Rampart req/s | **ratio** | ratio per round | bare p50 / p99 ms | Rampart p50 / p99 ms | bare CPU µs/req | Rampart CPU µs/req | CPU ratio (bare ÷ Rampart) | not 2xx (bare / Rampart, all rounds) |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of SCENARIOS) {
    const { bare, rampart } = runs.get(scenario.name)!;
    const b = median(bare.map((m) => m.rps));
    const r = median(rampart.map((m) => m.rps));
    const perRound = bare.map((m, i) => (rampart[i]!.rps / m.rps).toFixed(2)).join(', ');
    const bc = median(bare.map((m) => m.cpu));
    const rc = median(rampart.map((m) => m.cpu));
    lines.push(
      `| ${scenario.name} | ${f0(b)} | ${f0(r)} | **${(r / b).toFixed(2)}** | ${perRound} | ${median(bare.map((m) => m.p50))} / ${median(bare.map((m) => m.p99))} | ` +
        `${median(rampart.map((m) => m.p50))} / ${median(rampart.map((m) => m.p99))} | ${f0(bc)} | ${f0(rc)} | ${(bc / rc).toFixed(2)} | ${sum(bare, 'failed')} / ${sum(rampart, 'failed')} |`,
    );
  }
  writeReportSection('http', info.engine, lines);
  console.log(lines.join('\n'));
}

/** A CPU profile of Rampart alone under the asset GET load (the profiler runs only during the load). */
async function profile(databaseUrl: string | undefined): Promise<void> {
  const servers = await startServers(databaseUrl, true);
  const file = join(mkdtempSync(join(tmpdir(), 'rampart-http-prof-')), 'rampart.cpuprofile');
  try {
    await load(servers, servers.info.rampart, SCENARIOS[0]!, 2);
    await servers.ask({ profile: 'start' }, 'profiling');
    const m = await load(servers, servers.info.rampart, SCENARIOS[0]!, PROFILE_SECONDS);
    await servers.ask({ profile: file }, 'profiled');
    const lines = [
      `\`GET /api/assets/{id}\` on ${servers.info.engine}, ${CONNECTIONS} connections for ${PROFILE_SECONDS} s (${f0(m.rps)} req/s while profiled, sampling every 200 µs). Profile file: \`${file}\` (open in Chrome DevTools).`,
      '',
      ...profileTables(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile),
    ];
    writeReportSection('http', `Profile (${PROFILE_LABEL}, ${servers.info.engine})`, lines);
    console.log(lines.join('\n'));
  } finally {
    await stopServers(servers);
  }
}

/** MariaDB to measure on: DATABASE_URL when it is one, else the local service when it answers. */
async function mysqlUrl(): Promise<string | null> {
  const env = process.env.DATABASE_URL;
  if (env && /^(mysql|mariadb):/.test(env)) return env;
  const answers = await new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: 3306 });
    socket.setTimeout(1000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
  return answers ? DEFAULT_MYSQL : null;
}

const engine = arg('engine');
const onlyProfile = process.argv.includes('--only-profile');
if (engine !== 'mysql') {
  if (!onlyProfile) await runEngine(undefined);
  if (PROFILE_SECONDS > 0) await profile(undefined);
}
if (engine !== 'sqlite') {
  const url = await mysqlUrl();
  if (url) {
    if (!onlyProfile) await runEngine(url);
    if (PROFILE_SECONDS > 0) await profile(url);
  } else {
    console.log('MariaDB: no DATABASE_URL and nothing answers on 127.0.0.1:3306; SQLite only.');
  }
}
