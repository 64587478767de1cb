// Two Rampart processes (`--role api,worker`) on one MariaDB database and one Redis: the
// topology of docs/operations.md "More than one machine", started the way an operator
// would, configured only through the environment.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { generateToken } from '../../../core/auth/token-codec.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startService, type Service } from '../../_helpers/harness/spawn-service.ts';
import { createTestDatabase, type TestDatabase } from '../../_helpers/harness/test-db.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Instance {
  name: string;
  base: string;
  service: Service;
  /** JSON over a real socket; `token` null sends none. */
  request(method: string, path: string, token: string | null, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
}

export interface Cluster {
  db: TestDatabase;
  adminToken: string;
  keyPrefix: string;
  instances: Instance[];
  close(): Promise<void>;
}

/**
 * The environment both processes share: one database, one Redis under a key prefix of
 * this run only, one secret key, one bootstrap token. NODE_ENV=test brings the short
 * poll intervals and loopback allowance of config/test.json; the standard tier gets its
 * production numbers back so the shared budget is the real one.
 */
function sharedEnv(db: TestDatabase, adminToken: string, keyPrefix: string, extra: Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    REDIS_URL,
    BOOTSTRAP_ADMIN_TOKEN: adminToken,
    RAMPART_SECRET_KEY: randomKeyOnce,
    RAMPART__rateLimit__redis__keyPrefix: keyPrefix,
    RAMPART__rateLimit__tiers__standard: JSON.stringify({ perMinute: 100, burst: 20, streams: 5 }),
    ...extra,
  };
}
const randomKeyOnce = randomBytes(32).toString('base64');

/** `npm start -- --role api,worker`. */
function startProcess(env: Record<string, string>): Service {
  return startService(env, ['--role', 'api,worker']);
}

function instance(name: string, port: number, service: Service): Instance {
  const base = `http://127.0.0.1:${port}`;
  return {
    name,
    base,
    service,
    async request(method, path, token, body) {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = text;
      }
      return { status: res.status, headers: res.headers, body: parsed };
    },
  };
}

/**
 * Starts both processes at the same moment (bootstrap races, as in a real roll-out; on a new
 * database the migrations race too, which `migrated` skips: a copy of the migrated template).
 */
export async function startCluster(extra: Record<string, string>, count = 2, options: { migrated?: boolean } = {}): Promise<Cluster> {
  const db = await createTestDatabase({ migrated: options.migrated });
  const adminToken = generateToken();
  const keyPrefix = `rampart:test:${randomBytes(6).toString('hex')}:`;
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const instances = ports.map((port, i) => {
    const service = startProcess({ ...sharedEnv(db, adminToken, keyPrefix, extra), PORT: String(port) });
    return instance(String.fromCharCode(65 + i), port, service);
  });
  const close = async () => {
    for (const i of instances) if (i.service.child.exitCode === null) i.service.child.kill('SIGKILL');
    await Promise.all(instances.map((i) => i.service.exited));
    // RAMPART_TWO_INSTANCES_LOGS=<dir> keeps each process's log for a post-mortem.
    const logs = process.env.RAMPART_TWO_INSTANCES_LOGS;
    if (logs) for (const i of instances) writeFileSync(join(logs, `instance-${i.name}.log`), i.service.output());
    await db.drop();
    await dropRedisKeys(keyPrefix);
  };
  try {
    await Promise.all(instances.map((i) => i.service.waitFor(/Rampart listening/, 120_000)));
  } catch (err) {
    await close();
    throw err;
  }
  return { db, adminToken, keyPrefix, instances, close };
}

/** Deletes this run's rate-limit keys only (never a FLUSH: the Redis may be shared). */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      const list = Array.isArray(keys) ? keys : [keys];
      if (list.length) await client.del(list);
    }
  } finally {
    client.destroy();
  }
}

/** A tenant and a token with every tenant scope, made through the admin API. */
export async function createTenant(via: Instance, adminToken: string, name: string, tier: 'standard' | 'enterprise'): Promise<{ tenantId: string; token: string }> {
  const tenant = await via.request('POST', '/api/admin/tenants', adminToken, { name, tier });
  if (tenant.status !== 201) throw new Error(`tenant: ${JSON.stringify(tenant.body)}`);
  const tenantId = tenant.body.data.id as string;
  const { TENANT_SCOPES } = await import('../../../core/domain/scopes.ts');
  const token = await via.request('POST', `/api/admin/tenants/${tenantId}/tokens`, adminToken, { name: 'load', scopes: TENANT_SCOPES });
  if (token.status !== 201) throw new Error(`token: ${JSON.stringify(token.body)}`);
  return { tenantId, token: token.body.data.token as string };
}


export const SEED = process.env.RAMPART_TWO_INSTANCES_SEED ? Number(process.env.RAMPART_TWO_INSTANCES_SEED) : Math.floor(Math.random() * 2 ** 31);
