import type { Plugin, Server } from '@hapi/hapi';
import type { Config } from '../config/load-config.ts';
import type { AppContext } from './app-context.ts';
import { createDb } from './db/create-db.ts';
import { migrateLatest } from './db/migrate.ts';
import { EventBus } from './events/event-bus.ts';
import { Outbox } from './events/outbox.ts';
import { StreamHub } from './stream/stream-hub.ts';
import { Metrics } from './metrics/metrics.ts';
import { createSiemRuntime } from './siem/siem-runtime.ts';
import { createLogger, type Logger } from './logger.ts';
import { loadPlugins } from './plugins/load-plugins.ts';
import { AdminService } from './auth/admin-service.ts';
import { AuthService } from './auth/auth-service.ts';
import { PasswordHasher } from './auth/password-hasher.ts';
import { AssetService } from './assets/asset-service.ts';
import { AssetVerificationService } from './assets/asset-verification.ts';
import { FindingService } from './findings/finding-service.ts';
import { findingCounters } from './findings/finding-counters.ts';
import { StreamService } from './stream/stream-service.ts';
import { HealthService } from './http/health-service.ts';
import { ReadinessService } from './http/readiness-service.ts';
import { bootstrap } from './auth/bootstrap.ts';
import { ExportService } from './exports/export-service.ts';
import { RetentionSweeper } from './retention/retention-sweeper.ts';
import { ExportWorker } from './exports/export-worker.ts';
import { OutboundHttpClient } from './outbound/http-client.ts';
import { SecretBox } from './secrets/secret-box.ts';
import { CredentialStore } from './secrets/credential-store.ts';
import { ActionCatalog } from './actions/action-catalog.ts';
import { PlaybookCatalog } from './playbooks/catalog/playbook-catalog.ts';
import { createPlaybookRuntime } from './playbooks/runs/playbook-runtime.ts';
import { triggeredRunCharge } from './playbooks/triggers/trigger-budget.ts';
import { validateParameters } from './actions/parameter-validator.ts';
import { createActionRuntime } from './action-runs/action-runtime.ts';
import { createWebhookRuntime } from './webhooks/webhook-runtime.ts';
import { createScanRuntime } from './scans/scan-runtime.ts';
import { createServer } from './server.ts';
import { VERSION } from './version.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit/rate-limiter.ts';
import { BackgroundRegistry } from './work/background-registry.ts';
import { ROLES, type Role } from './work/roles.ts';
import { ApprovalService } from './approvals/approval-service.ts';
import { ApprovalSweeper } from './approvals/approval-sweeper.ts';
import { AgentService } from './agents/agent-service.ts';
import { agentSettingsOf } from './agents/agent-settings.ts';
import { createAgentHandle } from './agents/agent-handle.ts';
import { ImportService } from './imports/import-service.ts';
import { InventoryService } from './inventory/inventory-service.ts';
import { FeedsService } from './feeds/feeds-service.ts';
import { SsoService } from './sso/sso-service.ts';
import { PersonalTokenService } from './auth/personal-tokens.ts';
import { SignInSettingsService } from './auth/sign-in-settings.ts';

export interface AppOptions {
  /**
   * The API areas to serve (`plugins/index.ts` lists them). Handed in by the entry point
   * (core/main.ts, the test harness), so core/ never imports route plugins.
   */
  routes: ReadonlyArray<Plugin<AppContext>>;
  logger?: Logger;
  /** Lets tests move the rate limiter's time by hand. */
  rateLimitClock?: () => number;
  roles?: readonly Role[];
  /** Receives the admin token generated at first start, instead of the log (core/main.ts puts it in the start-up banner). */
  onAdminTokenGenerated?: (token: string) => void;
}

export interface App {
  ctx: AppContext;
  server: Server;
  /** Starts listening (api role) and the background services of the process's roles. */
  start(): Promise<void>;
  /** Stops accepting requests, lets in-flight ones finish (bounded), stops the background, closes the database. */
  stop(): Promise<void>;
}

/**
 * Wires one Rampart process: database (migrated), plugins, the process-wide pieces
 * (outbound HTTP client, secret box, outbox), services, the background registry,
 * first-start bootstrap and the HTTP server. Nothing listens until `start()`.
 * `rateLimitClock` lets tests move the rate limiter's time by hand.
 */
export async function createApp(config: Config, options: AppOptions): Promise<App> {
  const logger = options.logger ?? createLogger(config.log.level);
  const db = createDb(config.database.url);
  let rateLimiter: RateLimiter | undefined;
  let outbound: OutboundHttpClient | undefined;
  try {
    const applied = await migrateLatest(db);
    if (applied.length) logger.info({ migrations: applied }, 'database migrated');
    // `executors.<name>` is the admin's place for a built-in executor's settings; an entry
    // in plugins.builtinOptions for the same plugin wins key by key.
    const executorSettings = Object.fromEntries(
      (['local', 'script', 'notification', 'agent'] as const).filter((n) => Object.keys(config.executors[n]).length > 0 && (config.plugins.builtin === 'all' || config.plugins.builtin.includes(n))).map((n) => [n, { ...config.executors[n], ...(config.plugins.builtinOptions?.[n] ?? {}) }]),
    );
    const plugins = await loadPlugins({ ...config.plugins, builtinOptions: { ...config.plugins.builtinOptions, ...executorSettings } });
    const bus = new EventBus();
    const outbox = new Outbox(db, bus);
    outbound = new OutboundHttpClient({ ...config.outbound, userAgent: `Rampart/${VERSION}` });
    const secretBox = SecretBox.fromConfig(config.secrets, logger);
    const passwords = new PasswordHasher(config.auth);
    const admin = new AdminService(db, passwords);
    const exportService = new ExportService(db, config.exports, logger);
    const exportWorker = new ExportWorker(db, exportService, config.exports, logger);
    exportService.onQueued = () => exportWorker.wake();
    rateLimiter = await createRateLimiter(config, logger, { clock: options.rateLimitClock });
    const findings = new FindingService(db, outbox);
    const streamHub = new StreamHub({ db, bus, logger, pollIntervalMs: config.events.pollIntervalMs, gapGraceMs: config.events.gapGraceMs });
    // Counting starts at once (a listener, no loop): requests served before start() count too.
    const metrics = new Metrics({ db, bus, sseConnections: () => streamHub.size });
    metrics.start();
    const webhooks = createWebhookRuntime({ config, db, bus, outbox, logger, outbound, secretBox, onAttempt: (status, n) => metrics.deliveryAttempt(status, n) });
    const siem = createSiemRuntime({ config, db, bus, outbox, logger, plugins, secretBox });
    const scans = createScanRuntime({ config, db, outbox, plugins, logger, findings, outbound, secretBox, onCheck: (id, seconds) => metrics.checkFinished(id, seconds) });
    const retention = new RetentionSweeper(db, config.retention, logger);
    const approvals = new ApprovalService(db, logger);
    const approvalSweeper = new ApprovalSweeper(approvals, logger);
    // Start order; the registry stops them in reverse.
    const registry = new BackgroundRegistry()
      .register({ name: 'stream-hub', roles: ['api'], start: () => streamHub.start(), stop: () => streamHub.stop() })
      .register(webhooks.background)
      .register({ name: 'siem', roles: ['worker'], start: () => siem.forwarding.start(), stop: () => siem.forwarding.stop() })
      .register({ name: 'exports', roles: ['worker'], start: () => exportWorker.start(), stop: () => exportWorker.stop() })
      .register({ name: 'retention', roles: ['worker'], start: () => retention.start(), stop: () => retention.stop() })
      .register({ name: 'approvals', roles: ['worker'], start: () => approvalSweeper.start(), stop: () => approvalSweeper.stop() });
    for (const service of scans.background.services()) registry.register(service);
    const feeds = new FeedsService(db, config.feeds, outbound, logger);
    registry.register(feeds.background());
    const catalog = new ActionCatalog(db, { policy: outbound.policy, requireHttps: config.outbound.requireHttps });
    const playbooks = new PlaybookCatalog(db, catalog);
    const credentials = new CredentialStore(db, secretBox);
    const assets = new AssetService(db, outbox, config.assets.network, (trx, tenantId, assetId) => findingCounters.assetRemoved(trx, tenantId, assetId));
    const agents = new AgentService(db, secretBox, agentSettingsOf(config.executors.agent));
    const actionRuns = createActionRuntime({
      config, db, outbox, logger, plugins, outbound, credentials, approvals,
      agents: (run) => createAgentHandle(agents, run),
      catalog: { forRun: (tenantId, actionId) => catalog.forRun(tenantId, actionId), forRunByVersion: (tenantId, actionId, version) => catalog.forRunByVersion(tenantId, actionId, version), validateParameters },
      asset: async (tenantId, id) => {
        const row = await assets.getRow(tenantId, id).catch(() => null);
        return row ? { id: row.id, type: row.type, value: row.name, name: row.name } : null;
      },
    });
    registry.register(actionRuns.background);
    const playbookRuns = createPlaybookRuntime({
      config, db, bus, outbox, logger, playbooks, hooks: actionRuns.hooks,
      ports: { executions: actionRuns.executions, control: actionRuns.control, actions: catalog },
      asset: async (tenantId, id) => ((await assets.get(tenantId, id).catch(() => null)) as Record<string, unknown> | null),
      charge: triggeredRunCharge(db, rateLimiter),
    });
    for (const service of playbookRuns.background) registry.register(service);
    const roles = options.roles ?? ROLES;
    const ctx: AppContext = {
      config,
      db,
      logger,
      bus,
      outbox,
      plugins,
      outbound,
      secretBox,
      rateLimiter,
      streamHub,
      metrics,
      services: {
        admin,
        auth: new AuthService(db, admin, passwords, config.auth.loginTokenTtlSeconds),
        assets,
        assetVerification: new AssetVerificationService(db, outbox, { ...config.verification, outbound: config.outbound }),
        findings,
        exports: exportService,
        scans: scans.scans,
        schedules: scans.schedules,
        webhooks: webhooks.webhooks,
        deliveries: webhooks.deliveries,
        siem: siem.service,
        stream: new StreamService(db),
        health: new HealthService(db),
        readiness: new ReadinessService(db, { health: config.health, redisUrl: config.redis.url, loops: registry.loops, logger }),
        actions: catalog,
        credentials,
        executions: actionRuns.executions,
        executionControl: actionRuns.control,
        actionHooks: actionRuns.hooks,
        approvals,
        agents,
        playbooks,
        playbookRuns: playbookRuns.runs,
        imports: new ImportService(db, outbox, findings, config.imports, logger),
        inventory: new InventoryService(db, config.imports, logger),
        feeds,
        sso: new SsoService(db, config.sso, admin, config.auth.loginTokenTtlSeconds, logger),
        personalTokens: new PersonalTokenService(db, admin, config.sso.personalTokenMaxDays),
        signInSettings: new SignInSettingsService(db),
      },
      background: { registry, exports: exportWorker, retention, webhooks: webhooks.background, siem: siem.forwarding, scans: scans.background, actions: actionRuns.worker, approvals: approvalSweeper, playbooks: playbookRuns.worker, playbookTriggers: playbookRuns.triggers },
      version: VERSION,
      startedAt: Date.now(),
    };
    await bootstrap(db, admin, config.auth.bootstrapAdminToken, logger, options.onAdminTokenGenerated);
    const server = await createServer(ctx, options.routes);
    let stopped = false;
    return {
      ctx,
      server,
      async start() {
        // Roles (`--role`): api serves HTTP and the live stream; worker runs queued work; scheduler fires cron schedules.
        if (roles.includes('api')) await server.start();
        await registry.start(roles);
        logger.info({ url: roles.includes('api') ? server.info.uri : null, roles, version: VERSION, plugins: plugins.list().map((p) => p.plugin.name) }, roles.includes('api') ? 'Rampart listening' : 'Rampart started');
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.stop({ timeout: config.server.shutdownTimeoutMs });
        await registry.stop();
        ctx.metrics.stop();
        await ctx.services.readiness.close();
        await ctx.rateLimiter.close();
        await ctx.outbound.close();
        await db.destroy();
      },
    };
  } catch (err) {
    await rateLimiter?.close();
    await outbound?.close();
    await db.destroy();
    throw err;
  }
}
