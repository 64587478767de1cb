import type { Server } from '@hapi/hapi';
import type { Config } from '../config/load-config.ts';
import type { AppContext } from './app-context.ts';
import { createDb } from './db/create-db.ts';
import { migrateLatest } from './db/migrate.ts';
import { EventBus } from './events/event-bus.ts';
import { Outbox } from './events/outbox.ts';
import { StreamHub } from './stream/stream-hub.ts';
import { createSiemRuntime } from './siem/siem-runtime.ts';
import { createLogger, type Logger } from './logger.ts';
import { loadPlugins } from './plugins/load-plugins.ts';
import { AdminService } from './auth/admin-service.ts';
import { AuthService } from './auth/auth-service.ts';
import { AssetService } from './assets/asset-service.ts';
import { AssetVerificationService } from './assets/asset-verification.ts';
import { FindingService } from './findings/finding-service.ts';
import { StreamService } from './stream/stream-service.ts';
import { HealthService } from './http/health-service.ts';
import { bootstrap } from './auth/bootstrap.ts';
import { ExportService } from './exports/export-service.ts';
import { RetentionSweeper } from './retention/retention-sweeper.ts';
import { ExportWorker } from './exports/export-worker.ts';
import { createWebhookRuntime } from './webhooks/webhook-runtime.ts';
import { createScanRuntime, ROLES, type Role } from './scans/scan-runtime.ts';
import { createServer } from './server.ts';
import { VERSION } from './version.ts';
import { createRateLimiter, type RateLimiter } from './rate-limit/rate-limiter.ts';

export interface App {
  ctx: AppContext;
  server: Server;
  /** Starts listening. */
  start(): Promise<void>;
  /** Stops accepting requests, lets in-flight ones finish (bounded), closes the database. */
  stop(): Promise<void>;
}

/**
 * Wires one Rampart process: database (migrated), plugins, services, first-start
 * bootstrap and the HTTP server. Nothing listens until `start()`. `rateLimitClock`
 * lets tests move the rate limiter's time by hand.
 */
export async function createApp(config: Config, options: { logger?: Logger; rateLimitClock?: () => number; roles?: readonly Role[] } = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.log.level);
  const db = createDb(config.database.url);
  let rateLimiter: RateLimiter | undefined;
  try {
    const applied = await migrateLatest(db);
    if (applied.length) logger.info({ migrations: applied }, 'database migrated');
    const plugins = await loadPlugins(config.plugins);
    const bus = new EventBus();
    const admin = new AdminService(db, config.auth.scrypt);
    const outbox = new Outbox(db, bus);
    const exportService = new ExportService(db, config.exports, logger);
    const exportWorker = new ExportWorker(db, exportService, config.exports, logger);
    exportService.onQueued = () => exportWorker.wake();
    rateLimiter = await createRateLimiter(config, logger, { clock: options.rateLimitClock });
    const webhooks = createWebhookRuntime({ config, db, bus, outbox, logger });
    const findingService = new FindingService(db, outbox);
    const roles = options.roles ?? ROLES;
    const ctx: AppContext = {
      config,
      db,
      logger,
      bus,
      outbox,
      plugins,
      services: {
        admin,
        auth: new AuthService(db, admin, config.auth.scrypt, config.auth.loginTokenTtlSeconds),
        assets: new AssetService(db, outbox, config.assets.network),
        assetVerification: new AssetVerificationService(db, outbox, config.verification),
        findings: findingService,
        exports: exportService,
        stream: new StreamService(db),
        health: new HealthService(db),
      },
      exportWorker,
      retention: new RetentionSweeper(db, config.retention, logger),
      webhooks,
      streamHub: new StreamHub({ db, bus, logger, pollIntervalMs: config.events.pollIntervalMs, gapGraceMs: config.events.gapGraceMs }),
      siem: createSiemRuntime({ config, db, bus, outbox, logger, plugins, box: webhooks.secretBox }),
      rateLimiter,
      scans: createScanRuntime({ config, db, outbox, plugins, logger, findings: findingService, webhooks }),
      version: VERSION,
      startedAt: Date.now(),
    };
    await bootstrap(db, admin, config.auth.bootstrapAdminToken, logger);
    const server = await createServer(ctx);
    let stopped = false;
    return {
      ctx,
      server,
      async start() {
        // Roles (`--role`): api serves HTTP and the live stream; worker runs queued work; scheduler fires cron schedules.
        if (roles.includes('api')) {
          await server.start();
          await ctx.streamHub.start();
        }
        if (roles.includes('worker')) {
          await ctx.webhooks.start();
          await ctx.siem.start();
          ctx.exportWorker.start();
          ctx.retention.start();
        }
        await ctx.scans.start(roles);
        logger.info({ url: roles.includes('api') ? server.info.uri : null, roles, version: VERSION, plugins: plugins.list().map((p) => p.plugin.name) }, roles.includes('api') ? 'Rampart listening' : 'Rampart started');
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.stop({ timeout: config.server.shutdownTimeoutMs });
        await ctx.scans.stop();
        await ctx.rateLimiter.close();
        await ctx.webhooks.stop();
        await ctx.streamHub.stop();
        await ctx.siem.stop();
        await ctx.exportWorker.stop();
        await ctx.retention.stop();
        await db.destroy();
      },
    };
  } catch (err) {
    await rateLimiter?.close();
    await db.destroy();
    throw err;
  }
}
