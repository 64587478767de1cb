import type { Config } from '../config/load-config.ts';
import type { Db } from './db/create-db.ts';
import type { EventBus } from './events/event-bus.ts';
import type { StreamHub } from './stream/stream-hub.ts';
import type { SiemRuntime } from './siem/siem-runtime.ts';
import type { Outbox } from './events/outbox.ts';
import type { Logger } from './logger.ts';
import type { PluginRegistry } from './plugins/plugin-registry.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';
import type { AdminService } from './auth/admin-service.ts';
import type { AuthService } from './auth/auth-service.ts';
import type { ExportService } from './exports/export-service.ts';
import type { ExportWorker } from './exports/export-worker.ts';
import type { RetentionSweeper } from './retention/retention-sweeper.ts';
import type { AssetService } from './assets/asset-service.ts';
import type { AssetVerificationService } from './assets/asset-verification.ts';
import type { FindingService } from './findings/finding-service.ts';
import type { StreamService } from './stream/stream-service.ts';
import type { HealthService } from './http/health-service.ts';
import type { WebhookRuntime } from './webhooks/webhook-runtime.ts';
import type { ScanRuntime } from './scans/scan-runtime.ts';

/** What route plugins and background roles are given: config, storage, services. */
export interface AppContext {
  config: Config;
  db: Db;
  logger: Logger;
  bus: EventBus;
  outbox: Outbox;
  plugins: PluginRegistry;
  services: {
    admin: AdminService;
    auth: AuthService;
    assets: AssetService;
    assetVerification: AssetVerificationService;
    findings: FindingService;
    exports: ExportService;
    stream: StreamService;
    health: HealthService;
  };
  /** Runs background finding exports and deletes expired export files. */
  exportWorker: ExportWorker;
  /** Deletes old events, webhook deliveries and scan callbacks (worker role). */
  retention: RetentionSweeper;
  /** Outbound HTTP client, secret box, webhook services and their background workers. */
  webhooks: WebhookRuntime;
  /** The one events-table reader feeding every open SSE stream of this process. */
  streamHub: StreamHub;
  /** SIEM integrations (service) and their syslog forwarders (background). */
  siem: SiemRuntime;
  /** Tier and per-endpoint token buckets, stream connection slots (memory or Redis). */
  rateLimiter: RateLimiter;
  /** Scans and schedules (API), the scan worker with its check pool, the scheduler. */
  scans: ScanRuntime;
  version: string;
  startedAt: number;
}
