import net from 'node:net';

/** One engine a benchmark runs on: its report section name, the child's arguments and environment, or why it is skipped. */
export interface EngineRun {
  label: 'SQLite' | 'MariaDB';
  args: string[];
  env: NodeJS.ProcessEnv;
  skip: string | null;
}

const DEFAULT_MYSQL = 'mysql://root@127.0.0.1:3306/test';

function reachable(url: string, timeoutMs = 1500): Promise<string | null> {
  const u = new URL(url.replace(/^mariadb:/, 'mysql:'));
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 3306) });
    const done = (why: string | null) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(timeoutMs, () => done(`MariaDB at ${u.hostname}:${u.port || 3306} did not answer within ${timeoutMs} ms`));
    socket.once('connect', () => done(null));
    socket.once('error', (err) => done(`MariaDB at ${u.hostname}:${u.port || 3306} is not reachable (${(err as NodeJS.ErrnoException).code ?? err.message})`));
  });
}

/**
 * `--engine=sqlite|mysql`: this process is the run for that engine (DATABASE_URL is set
 * for the test-database helper). Without it, the caller spawns one child per engine —
 * SQLite, then MariaDB (DATABASE_URL when it is a MySQL URL, else the CI server on
 * loopback) — so each engine's figures come from a fresh process and the JIT warm-up of
 * one cannot flatter the other.
 */
export async function engineRuns(argv: string[]): Promise<{ child: boolean; runs: EngineRun[] }> {
  const chosen = argv.find((a) => a.startsWith('--engine='))?.split('=')[1];
  const envUrl = process.env.DATABASE_URL ?? '';
  const mysqlUrl = /^(mysql|mariadb):/.test(envUrl) ? envUrl : DEFAULT_MYSQL;
  if (chosen === 'sqlite') {
    delete process.env.DATABASE_URL;
    return { child: true, runs: [] };
  }
  if (chosen === 'mysql') {
    process.env.DATABASE_URL = mysqlUrl;
    return { child: true, runs: [] };
  }
  if (chosen) throw new Error(`--engine must be sqlite or mysql, not ${chosen}`);
  const rest = argv.slice(2).filter((a) => !a.startsWith('--engine='));
  const sqliteEnv = { ...process.env };
  delete sqliteEnv.DATABASE_URL;
  return {
    child: false,
    runs: [
      { label: 'SQLite', args: [...rest, '--engine=sqlite'], env: sqliteEnv, skip: null },
      { label: 'MariaDB', args: [...rest, '--engine=mysql'], env: { ...process.env, DATABASE_URL: mysqlUrl }, skip: await reachable(mysqlUrl) },
    ],
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export const fmt = (n: number): string => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 1) : 'n/a');
