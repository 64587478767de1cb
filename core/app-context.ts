import type { Config } from '../config/load-config.ts';
import type { Db } from './db/create-db.ts';
import type { EventBus } from './events/event-bus.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { StreamHub } from './stream/stream-hub.ts';
import type { Outbox } from './events/outbox.ts';
import type { Logger } from './logger.ts';
import type { OutboundHttpClient } from './outbound/http-client.ts';
import type { PluginRegistry } from './plugins/plugin-registry.ts';
import type { RateLimiter } from './rate-limit/rate-limiter.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import type { AdminService } from './auth/admin-service.ts';
import type { AuthService } from './auth/auth-service.ts';
import type { ExportService } from './exports/export-service.ts';
import type { ExportWorker } from './exports/export-worker.ts';
import type { RetentionSweeper } from './retention/retention-sweeper.ts';
import type { AssetService } from './assets/asset-service.ts';
import type { AssetVerificationService } from './assets/asset-verification.ts';
import type { FindingService } from './findings/finding-service.ts';
import type { ScanService } from './scans/scan-service.ts';
import type { ScheduleService } from './scans/schedule-service.ts';
import type { ScanBackground } from './scans/scan-runtime.ts';
import type { SiemService } from './siem/siem-service.ts';
import type { SiemForwarding } from './siem/siem-forwarding.ts';
import type { WebhookService } from './webhooks/webhook-service.ts';
import type { WebhookDeliveryService } from './webhooks/webhook-delivery-service.ts';
import type { WebhookBackground } from './webhooks/webhook-runtime.ts';
import type { BackgroundRegistry } from './work/background-registry.ts';
import type { StreamService } from './stream/stream-service.ts';
import type { HealthService } from './http/health-service.ts';
import type { ReadinessService } from './http/readiness-service.ts';
import type { ActionCatalog } from './actions/action-catalog.ts';
import type { PlaybookCatalog } from './playbooks/catalog/playbook-catalog.ts';
import type { PlaybookRunService } from './playbooks/runs/run-service.ts';
import type { PlaybookRunWorker } from './playbooks/runs/run-worker.ts';
import type { TriggerConsumer } from './playbooks/triggers/trigger-consumer.ts';
import type { CredentialStore } from './secrets/credential-store.ts';
import type { ExecutionService } from './action-runs/execution-service.ts';
import type { ExecutionControl } from './action-runs/execution-control.ts';
import type { RunWorker } from './action-runs/run-worker.ts';
import type { FinishHooks } from './action-runs/finish-hooks.ts';
import type { ApprovalService } from './approvals/approval-service.ts';
import type { ApprovalSweeper } from './approvals/approval-sweeper.ts';
import type { AgentService } from './agents/agent-service.ts';
import type { ImportService } from './imports/import-service.ts';
import type { InventoryService } from './inventory/inventory-service.ts';
import type { FeedsService } from './feeds/feeds-service.ts';
import type { SsoService } from './sso/sso-service.ts';
import type { PersonalTokenService } from './auth/personal-tokens.ts';
import type { SignInSettingsService } from './auth/sign-in-settings.ts';

/** Every service the routes call, one level deep: `ctx.services.<name>`. */
export interface AppServices {
  admin: AdminService;
  auth: AuthService;
  assets: AssetService;
  assetVerification: AssetVerificationService;
  findings: FindingService;
  exports: ExportService;
  scans: ScanService;
  schedules: ScheduleService;
  webhooks: WebhookService;
  deliveries: WebhookDeliveryService;
  siem: SiemService;
  stream: StreamService;
  health: HealthService;
  /** GET /api/health/ready: database, migrations, Redis and the background loops. */
  readiness: ReadinessService;
  /** The action catalog (both views, versions); the run engine reads actions through it. */
  actions: ActionCatalog;
  /** The tenant credential store; the run engine resolves secret parameters through it. */
  credentials: CredentialStore;
  /** Action runs: trigger, dry run, records and run logs (core/action-runs). */
  executions: ExecutionService;
  /** Cancels and approval outcomes of action runs. */
  executionControl: ExecutionControl;
  /** Parents of action runs (playbook steps) register finish hooks here. */
  actionHooks: FinishHooks;
  /** Approval requests (approval actions, paused playbook runs); subject owners register `onResolved` handlers. */
  approvals: ApprovalService;
  /** On-site execution agents: admin, agent protocol, and dispatch for `ctx.agents` (core/agents/agent-handle.ts). */
  agents: AgentService;
  /** Playbook definitions and versions (core/playbooks/catalog); the playbook engine and triggers read them through it. */
  playbooks: PlaybookCatalog;
  /** Playbook runs: by hand, dry runs, records, steps, cancel (core/playbooks/runs). */
  playbookRuns: PlaybookRunService;
  /** Other tools' result files (SARIF, nuclei, ZAP) into findings (core/imports). */
  imports: ImportService;
  /** The software inventory: SBOM uploads, components, where a package runs (core/inventory). */
  inventory: InventoryService;
  /** The KEV and EPSS feeds: loads, the scheduled fetch, status (core/feeds; global, not per tenant). */
  feeds: FeedsService;
  /** Single sign-on with OpenID Connect (core/sso). */
  sso: SsoService;
  /** A signed-in user's own API tokens. */
  personalTokens: PersonalTokenService;
  /** Tenants' sign-in switches (password sign-in on/off). */
  signInSettings: SignInSettingsService;
}

/** The background services (all in `registry`, which starts them by role), and handles on the ones tests and benchmarks drive. */
export interface AppBackground {
  registry: BackgroundRegistry;
  /** Background finding exports; deletes expired export files. */
  exports: ExportWorker;
  /** Deletes old events, webhook deliveries and scan callbacks. */
  retention: RetentionSweeper;
  /** The outbox consumer creating webhook deliveries, and the delivery worker. */
  webhooks: WebhookBackground;
  /** One syslog forwarder per active SIEM integration. */
  siem: SiemForwarding;
  /** The scan worker with its check pool and callbacks (worker role), the scheduler (scheduler role). */
  scans: ScanBackground;
  /** The action run worker (worker role). */
  actions: RunWorker;
  /** Expires overdue approval requests and re-drives unhandled resolutions (worker role). */
  approvals: ApprovalSweeper;
  /** The playbook run worker (worker role). */
  playbooks: PlaybookRunWorker;
  /** The outbox consumer that starts playbook runs from events (worker role). */
  playbookTriggers: TriggerConsumer;
}

/** What route plugins and background roles are given: process-wide pieces at the top, services, background. */
export interface AppContext {
  config: Config;
  db: Db;
  logger: Logger;
  bus: EventBus;
  outbox: Outbox;
  plugins: PluginRegistry;
  /** The one outbound HTTP client (SSRF rules) for webhooks, scan callbacks and checks of callback URLs. */
  outbound: OutboundHttpClient;
  /** Seals webhook, callback and SIEM secrets at rest. */
  secretBox: SecretBox;
  /** Tier and per-endpoint token buckets, stream connection slots (memory or Redis). */
  rateLimiter: RateLimiter;
  /** The one events-table reader feeding every open SSE stream of this process (api role). */
  streamHub: StreamHub;
  /** Prometheus figures for GET /metrics (core/metrics/). */
  metrics: Metrics;
  services: AppServices;
  background: AppBackground;
  version: string;
  startedAt: number;
}
