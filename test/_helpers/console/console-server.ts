import { generateToken } from '../../../core/auth/token-codec.ts';
import { freePort, startCompiledService, type Service } from '../harness/spawn-service.ts';
import { compiledDist } from './compiled-start.ts';
import { createTestDatabase, type TestDatabase } from '../harness/test-db.ts';
import { SEVERITY_VECTORS } from '../harness/severity-vectors.ts';

/** Every tenant scope (not admin): what the console's user gets in the tests. */
export const USER_SCOPES = [
  'assets:read', 'assets:write', 'scan:read', 'scan:write', 'findings:read', 'findings:write',
  'actions:read', 'actions:write', 'actions:execute', 'playbooks:read', 'playbooks:write', 'playbooks:run',
  'webhooks:manage', 'events:read', 'integrations:manage',
];

export interface ConsoleServer {
  url: string;
  /** The bootstrap admin token (every scope, tenant `default`). */
  adminToken: string;
  db: TestDatabase;
  service: Service;
  /** A JSON request to the API with a token; throws on a non-2xx answer. */
  call<T = any>(token: string, method: string, path: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * A real Rampart as `npm start` runs it (the compiled dist/, built once for the whole run;
 * issue 24: the console was blank there while it worked from the sources), api and worker roles, on a fresh database
 * (DATABASE_URL's engine: SQLite by default, MariaDB in CI; migrated from a template), with the test configuration's
 * fast polling and generous rate limits, listening on a free loopback port.
 */
export async function startConsoleServer(env: Record<string, string> = {}): Promise<ConsoleServer> {
  // A copy of the migrated template: what the start would make of an empty database, without
  // running every migration again in each file (1–2.5 s on MariaDB).
  const [db] = await Promise.all([createTestDatabase({ migrated: true }), compiledDist()]);
  const port = await freePort();
  const adminToken = generateToken();
  const service = startCompiledService({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: db.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    BOOTSTRAP_ADMIN_TOKEN: adminToken,
    ...env,
  });
  try {
    await service.waitFor(/Rampart listening/, 150_000);
  } catch (err) {
    service.child.kill('SIGKILL');
    await db.drop();
    throw err;
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    adminToken,
    db,
    service,
    async call(token, method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return (text ? JSON.parse(text) : null) as never;
    },
    async stop() {
      service.child.kill('SIGTERM');
      const timer = setTimeout(() => service.child.kill('SIGKILL'), 10_000);
      await service.exited;
      clearTimeout(timer);
      await db.drop();
    },
  };
}

export interface SeededTenant {
  tenantId: string;
  email: string;
  password: string;
  /** An API token of the tenant with every tenant scope. */
  token: string;
  /** An API token with only findings:read (for the scope checks). */
  readOnlyToken: string;
}

/** A tenant with a user who can sign in with a password, and two API tokens. */
export async function seedTenant(server: ConsoleServer, name = 'blue-team'): Promise<SeededTenant> {
  const admin = server.adminToken;
  const tenant = (await server.call(admin, 'POST', '/api/admin/tenants', { name, tier: 'premium' })).data;
  const email = `${name}@example.com`;
  const password = 'correct horse battery staple';
  await server.call(admin, 'POST', `/api/admin/tenants/${tenant.id}/users`, { email, password, scopes: USER_SCOPES });
  const token = (await server.call(admin, 'POST', `/api/admin/tenants/${tenant.id}/tokens`, { name: 'console-tests', scopes: USER_SCOPES })).data.token;
  const readOnlyToken = (await server.call(admin, 'POST', `/api/admin/tenants/${tenant.id}/tokens`, { name: 'read-only', scopes: ['findings:read'] })).data.token;
  return { tenantId: tenant.id, email, password, token, readOnlyToken };
}

export const VECTORS = SEVERITY_VECTORS;

/**
 * Three assets and `count` findings spread over them and over the severities (the
 * severity of finding i is the i-th of critical, high, medium, low, info, round robin).
 */
export async function seedFindings(server: ConsoleServer, token: string, count = 30): Promise<{ assets: Array<{ id: string; name: string }>; findings: Array<{ id: string; title: string; severity: string }> }> {
  const assets: Array<{ id: string; name: string }> = [];
  for (const name of ['shop.example.com', 'api.example.com', 'intranet.example.com']) {
    assets.push((await server.call(token, 'POST', '/api/assets', { name, type: 'domain', tags: ['prod'] })).data);
  }
  const severities = Object.keys(VECTORS) as Array<keyof typeof VECTORS>;
  const findings = Array.from({ length: count }, (_, i) => ({
    asset_id: assets[i % assets.length].id,
    title: `Seeded finding ${String(i).padStart(2, '0')} (${severities[i % 5]})`,
    description: 'Seeded for the console tests.',
    remediation: 'Apply the vendor patch.',
    cvss_vector: VECTORS[severities[i % 5]!],
    references: ['https://owasp.org/Top10/'],
    evidence: { url: 'https://shop.example.com/login', method: 'POST', parameter: 'user', payload: "' OR 1=1--", response_indicator: 'SQL syntax error' },
  }));
  const created = (await server.call(token, 'POST', '/api/findings/bulk', { findings })).data.findings;
  return { assets, findings: created };
}
