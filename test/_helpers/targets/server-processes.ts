import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reachable } from '../harness/local-service.ts';
import { freePort } from '../harness/spawn-service.ts';
import { systemBinary } from './netns-hosts.ts';

export interface ServerProcess {
  port: number;
  close(): Promise<void>;
}

/**
 * A real server (broker, Redis) started for one test file on a free loopback port, with a config
 * written here (credentials never on the command line). Rejects with a sentence when
 * the binary is not installed, so tests can skip with that reason.
 */
async function startServer(binary: string, config: (port: number, dir: string) => string, args: (file: string) => string[]): Promise<ServerProcess> {
  const path = systemBinary(binary);
  if (path === binary) throw new Error(`${binary} is not installed`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `rampart-${binary}-`));
  const file = join(dir, 'broker.conf');
  writeFileSync(file, config(port, dir), { mode: 0o644 });
  const child = spawn(path, args(file), { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d));
  child.stderr!.on('data', (d: Buffer) => (output += d));
  const close = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    if (await reachable('127.0.0.1', port)) return { port, close };
    await new Promise((r) => setTimeout(r, 100));
  }
  await close();
  throw new Error(`${binary} did not start: ${output.slice(0, 500)}`);
}

/** nats-server on loopback; with `user`, clients must log in with it. */
export function startNatsServer(opts: { user?: { name: string; password: string } } = {}): Promise<ServerProcess> {
  return startServer(
    'nats-server',
    (port) => [`listen: "127.0.0.1:${port}"`, ...(opts.user ? [`authorization { user: "${opts.user.name}", password: "${opts.user.password}" }`] : [])].join('\n'),
    (file) => ['-c', file],
  );
}

/** Mosquitto on loopback; `anonymous: false` refuses clients without valid credentials (there are none). */
export function startMosquitto(opts: { anonymous: boolean }): Promise<ServerProcess> {
  return startServer(
    'mosquitto',
    (port) => [`listener ${port} 127.0.0.1`, `allow_anonymous ${opts.anonymous}`, 'persistence false', 'log_dest stdout', ''].join('\n'),
    (file) => ['-c', file],
  );
}

/** redis-server on loopback; with `password`, commands need AUTH first. */
export function startRedisServer(opts: { password?: string } = {}): Promise<ServerProcess> {
  return startServer(
    'redis-server',
    (port, dir) => [`bind 127.0.0.1`, `port ${port}`, `dir ${dir}`, 'save ""', 'appendonly no', ...(opts.password ? [`requirepass ${opts.password}`] : []), ''].join('\n'),
    (file) => [file],
  );
}
