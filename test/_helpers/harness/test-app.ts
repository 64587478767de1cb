import type { Server } from '@hapi/hapi';
import { loadConfig, type Config } from '../../../config/load-config.ts';
import { createApp, type App } from '../../../core/app.ts';
import { routePlugins } from '../../../plugins/index.ts';
import type { AppContext } from '../../../core/app-context.ts';
import type { Logger } from '../../../core/logger.ts';
import { TENANT_SCOPES, type Scope, type Tier } from '../../../core/domain/scopes.ts';
import { generateToken } from '../../../core/auth/token-codec.ts';
import { createTestDatabase, type TestDatabase } from './test-db.ts';

export interface InjectOptions {
  token?: string | null;
  payload?: unknown;
  headers?: Record<string, string>;
}

export interface InjectResult {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null when the body is empty or not JSON. */
  body: any;
  raw: string;
}

export interface TestApp {
  app: App;
  server: Server;
  ctx: AppContext;
  config: Config;
  database: TestDatabase;
  /** The bootstrap admin token of tenant `default` (every scope). */
  adminToken: string;
  request(method: string, url: string, options?: InjectOptions): Promise<InjectResult>;
  /** A new tenant with a token holding the given scopes (default: every tenant scope). */
  tenant(options?: { name?: string; tier?: Tier; scopes?: Scope[] }): Promise<{ tenantId: string; token: string }>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * A whole Rampart app on a fresh database (SQLite, or MariaDB when DATABASE_URL says
 * so; copied from a migrated template, so the app's start finds no migration to run), not listening: requests go through `server.inject`. Pass config overrides as
 * the second level of config/default.json.
 */
export async function createTestApp(
  overrides: Record<string, unknown> = {},
  options: { logger?: Logger; rateLimitClock?: () => number } = {},
): Promise<TestApp> {
  const database = await createTestDatabase({ migrated: true });
  const adminToken = generateToken();
  const config = loadConfig({
    env: { NODE_ENV: 'test' },
    overrides: { database: { url: database.url }, auth: { bootstrapAdminToken: adminToken }, ...overrides },
  });
  const app = await createApp(config, { routes: routePlugins, logger: options.logger, rateLimitClock: options.rateLimitClock });
  const request = async (method: string, url: string, options: InjectOptions = {}): Promise<InjectResult> => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? adminToken : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await app.server.inject({ method, url, headers, payload: options.payload as object | undefined });
    let body: unknown = null;
    try {
      body = res.payload ? JSON.parse(res.payload) : null;
    } catch {
      body = null;
    }
    return { statusCode: res.statusCode, headers: res.headers as InjectResult['headers'], body, raw: res.payload };
  };
  return {
    app,
    server: app.server,
    ctx: app.ctx,
    config,
    database,
    adminToken,
    request,
    async tenant(options = {}) {
      counter += 1;
      const tenant = await app.ctx.services.admin.createTenant({ name: options.name ?? `tenant-${process.pid}-${counter}-${Date.now()}`, tier: options.tier ?? 'standard' });
      const issued = await app.ctx.services.admin.createToken(tenant.id, { name: 'test', scopes: options.scopes ?? TENANT_SCOPES, expiresAt: null });
      return { tenantId: tenant.id, token: issued.token };
    },
    async close() {
      await app.stop();
      await database.drop();
    },
  };
}
