import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateToken } from '../core/auth/token-codec.ts';
import { writeReportSection } from './_lib/report.ts';

/**
 * Start-up time and first-scan latency, the compiled start (`npm start`: dist/ through
 * core/runtime/launch.mjs) against the runtime transpiler (`npm run dev`: tsx in the server
 * and in every check thread), interleaved in one run on fresh SQLite databases. Start-up is
 * spawn → `GET /api/health/live` answers; first scan is the README's port scan of
 * 127.0.0.1 (top ports), create → completed, which includes starting the check threads.
 *
 *   npm run bench -- startup [--rounds=N] [--no-report]
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const ROUNDS = Number(arg('rounds') ?? 5);
const MODES = {
  compiled: ['--no-node-snapshot', 'core/runtime/launch.mjs', 'core/main'],
  tsx: ['--no-node-snapshot', '--import', 'tsx', 'core/main.ts'],
} as const;
type Mode = keyof typeof MODES;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function once(mode: Mode): Promise<{ startMs: number; scanMs: number; rssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-bench-startup-'));
  const port = await freePort();
  const token = generateToken();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, MODES[mode], {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production',
      DATABASE_URL: `sqlite:${join(dir, 'rampart.db')}`, PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP_ADMIN_TOKEN: token,
      RAMPART__secrets__keyFile: join(dir, 'secret.key'), RAMPART__exports__directory: join(dir, 'exports'),
      RAMPART__scans__denySelf: 'false', RAMPART__scans__requireVerifiedAsset: 'false', RAMPART__log__level: 'warn',
    },
  });
  try {
    await until(async () => ((await fetch(`${base}/api/health/live`)).ok ? true : undefined), 120_000, `${mode} to listen`);
    const startMs = performance.now() - started;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      return (await res.json()) as { data: Record<string, any> };
    };
    const asset = await call('POST', '/api/assets', { name: '127.0.0.1', type: 'ip' });
    const t0 = performance.now();
    const scan = await call('POST', '/api/scan/create', { asset_id: asset.data.id, scan_type: 'port', options: { ports: 'top' } });
    const status = await until(async () => {
      const s = (await call('GET', `/api/scan/${scan.data.scan_id}/status`)).data.status as string;
      return ['completed', 'failed', 'cancelled'].includes(s) ? s : undefined;
    }, 120_000, 'the first scan');
    if (status !== 'completed') throw new Error(`${mode}: the first scan ended ${status}`);
    const scanMs = performance.now() - t0;
    const rss = spawnSync('ps', ['-o', 'rss=', '--ppid', String(child.pid), '-p', String(child.pid)], { encoding: 'utf8' }).stdout.trim().split(/\s+/).map(Number).reduce((a, b) => a + b, 0);
    return { startMs, scanMs, rssMb: rss / 1024 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log(`Node ${process.version}, ${cpus().length} CPUs; building dist/ once first`);
const build = spawnSync(process.execPath, ['core/runtime/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');
const runs: Record<Mode, Array<{ startMs: number; scanMs: number; rssMb: number }>> = { compiled: [], tsx: [] };
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first, so a warming disk cache or a busy minute favours neither.
  for (const mode of (round % 2 ? ['tsx', 'compiled'] : ['compiled', 'tsx']) as Mode[]) {
    const r = await once(mode);
    runs[mode].push(r);
    console.log(`round ${round + 1} ${mode}: listening after ${r.startMs.toFixed(0)} ms, first scan ${r.scanMs.toFixed(0)} ms, RSS ${r.rssMb.toFixed(0)} MB`);
  }
}
const figure = (mode: Mode, key: 'startMs' | 'scanMs' | 'rssMb') => median(runs[mode].map((r) => r[key]));
const lines = [
  `${ROUNDS} interleaved rounds, medians; each start on a fresh SQLite database (migrations included).`,
  '',
  '| | runtime transpiler (tsx, `npm run dev`) — baseline | compiled (`npm start`) | ratio compiled/tsx |',
  '|---|---:|---:|---:|',
  `| spawn → \`/api/health/live\` answers | ${figure('tsx', 'startMs').toFixed(0)} ms | ${figure('compiled', 'startMs').toFixed(0)} ms | ${(figure('compiled', 'startMs') / figure('tsx', 'startMs')).toFixed(2)} |`,
  `| first scan (port, top ports of 127.0.0.1), create → completed | ${figure('tsx', 'scanMs').toFixed(0)} ms | ${figure('compiled', 'scanMs').toFixed(0)} ms | ${(figure('compiled', 'scanMs') / figure('tsx', 'scanMs')).toFixed(2)} |`,
  `| RSS of the server and its direct children after the scan | ${figure('tsx', 'rssMb').toFixed(0)} MB | ${figure('compiled', 'rssMb').toFixed(0)} MB | ${(figure('compiled', 'rssMb') / figure('tsx', 'rssMb')).toFixed(2)} |`,
  '',
  'The first scan starts the check threads: under tsx each thread transpiles the scanner code as it loads; compiled, each loads JavaScript from dist/.',
];
if (process.argv.includes('--no-report')) console.log(lines.join('\n'));
else writeReportSection('startup', 'sqlite', lines);
