import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToken } from '../../../core/auth/token-codec.ts';
import { childrenOf } from '../harness/processes.ts';
import { freePort, ROOT, startNpmScript, type Service } from '../harness/spawn-service.ts';
import { createTestDatabase, type TestDatabase } from '../harness/test-db.ts';
import { compiledDist } from './compiled-start.ts';

/**
 * The settings the README tells a user to set to try scans and webhooks on one machine
 * under `npm start` (the `lab-settings` block): its `NAME=value` words before `npm start`.
 */
export function readmeLabSettings(): Record<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- lab-settings -->\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no <!-- lab-settings --> block');
  const line = block.replace(/\\\n\s*/g, ' ').split('npm start')[0]!;
  return Object.fromEntries([...line.matchAll(/([A-Z][A-Za-z0-9_]*)=('[^']*'|"[^"]*"|\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^(['"])([\s\S]*)\1$/, '$2')]));
}

export interface ProductionServer {
  url: string;
  /** BOOTSTRAP_ADMIN_TOKEN, as the README lets a user choose it. */
  adminToken: string;
  service: Service;
  db: TestDatabase;
  stop(): Promise<void>;
}

/**
 * Rampart started exactly as the README starts it: `npm start` (npm, then the compiled
 * dist/), NODE_ENV=production, the default configuration plus only what the README tells a
 * user to set (PORT and HOST for a free loopback port, DATABASE_URL for this run's
 * database, BOOTSTRAP_ADMIN_TOKEN, and `extra`, e.g. the README's lab settings). The data
 * files the defaults put under ./data go to a temporary folder instead.
 */
export async function startProduction(extra: Record<string, string> = {}): Promise<ProductionServer> {
  const [db] = await Promise.all([createTestDatabase(), compiledDist()]);
  const dir = mkdtempSync(join(tmpdir(), 'rampart-production-'));
  const port = await freePort();
  const adminToken = generateToken();
  const service = startNpmScript('start', {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    BOOTSTRAP_ADMIN_TOKEN: adminToken,
    RAMPART__secrets__keyFile: join(dir, 'secret.key'),
    RAMPART__exports__directory: join(dir, 'exports'),
    ...extra,
  });
  const stop = async () => {
    for (const c of childrenOf(service.child.pid!)) {
      try {
        process.kill(c.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    service.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const c of childrenOf(service.child.pid!)) {
        try {
          process.kill(c.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      service.child.kill('SIGKILL');
    }, 10_000);
    await service.exited;
    clearTimeout(timer);
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await service.waitFor(/Rampart listening/, 150_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, adminToken, service, db, stop };
}
