import { hostname as osHostname } from 'node:os';
import { resolve } from 'node:path';
import { isIP } from 'node:net';
import type { Config } from '../config/config-schema.ts';
import { safetySwitchesOff } from '../config/safety-switches.ts';
import type { Role } from './work/roles.ts';

/** What the start-up banner reports; gathered by core/main.ts once the process runs. */
export interface BannerFacts {
  version: string;
  roles: readonly Role[];
  config: Config;
  /** Where the HTTP server listens (api role): the configured host and the port it got. */
  listening: { host: string; port: number } | null;
  /** The admin token generated at this start (first start, no BOOTSTRAP_ADMIN_TOKEN). */
  adminToken: string | null;
  /** The file the generated token was also written to (`auth.bootstrapTokenFile`). */
  adminTokenFile: string | null;
  compiled: boolean;
  /** Plugins loaded from TypeScript sources while running compiled code. */
  typescriptPlugins: string[];
  hostname?: string;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '::0', '0:0:0:0:0:0:0:0']);

function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The URL to open on this machine: a wildcard bind is reached on loopback, never at "0.0.0.0". */
export function localUrl(listening: { host: string; port: number }): string {
  return WILDCARDS.has(listening.host) ? `http://127.0.0.1:${listening.port}` : `http://${urlHost(listening.host)}:${listening.port}`;
}

/** The database as an operator recognises it: the SQLite file's full path, or the server URL without password or query. */
export function describeDatabase(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    return path === ':memory:' ? 'sqlite (in memory)' : `sqlite:${resolve(path)}`;
  }
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return url.split(':')[0] ?? 'unknown';
  }
}

/** Redis without credentials: host, port and database number only. */
function describeRedis(url: string | null): string {
  if (!url) return 'none: each process keeps its own rate-limit buckets';
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'configured';
  }
}

/**
 * The human summary printed on standard error once the process runs (standard output
 * stays JSON log lines): where to go, what runs on which database, the admin token if it
 * was just made, and a warning per safety switch that is off.
 */
export function startupBanner(f: BannerFacts): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(13)}${value}`);
  lines.push(`Rampart ${f.version} is running (${f.compiled ? 'compiled JavaScript from dist/' : 'TypeScript sources through tsx'})`);
  if (f.listening) {
    const url = localUrl(f.listening);
    const where = WILDCARDS.has(f.listening.host)
      ? ` (listening on every interface; from other machines http://${f.hostname ?? osHostname()}:${f.listening.port})`
      : '';
    row('URL', `${url}${where}`);
    row('API docs', `${url}/docs`);
    row('Console', `${url}/console`);
    row('Health', `${url}/api/health/ready`);
  } else {
    row('URL', 'none: this process does not serve HTTP (no api role)');
  }
  row('Roles', f.roles.join(', '));
  row('Database', describeDatabase(f.config.database.url));
  row('Redis', describeRedis(f.config.redis.url));
  if (f.config.profile) row('Profile', `${f.config.profile}${f.config.profile === 'trial' ? ': for trying Rampart on this machine, never for production' : ''}`);
  if (f.adminToken) {
    row('Admin token', `${f.adminToken}`);
    row('', `shown once: store it now${f.adminTokenFile ? ` (also written to ${f.adminTokenFile}, readable only by you)` : ''}`);
  }
  for (const name of f.typescriptPlugins) row('Note', `plugin ${name} is TypeScript, transpiled as it loads; ship it as JavaScript for production`);
  for (const s of safetySwitchesOff(f.config)) row('WARNING', `${s.key} is ${s.value}: ${s.risk}`);
  const width = Math.max(...lines.map((l) => l.length));
  const rule = '-'.repeat(Math.min(width, 100));
  return [rule, ...lines, rule].join('\n');
}
