import Joi from 'joi';
import { AddressPolicy } from '../core/outbound/address-policy.ts';
import { exportsConfigSchema, type ExportsConfig } from './exports-config.ts';
import { executorsConfigSchema, type ExecutorsConfig } from './executors-config.ts';
import { scanConfigSchema, type ScanConfig } from './scan-config.ts';
import { rateLimitConfigSchema, type RateLimitConfig } from './rate-limit-config.ts';
import { siemConfigSchema, streamConfigSchema, type SiemConfig, type StreamConfig } from './event-channels-config.ts';
import { retentionConfigSchema, type RetentionConfig } from './retention-config.ts';
import { feedsConfigSchema, type FeedsConfig } from './feeds-config.ts';
import { playbooksConfigSchema, type PlaybooksConfig } from './playbooks-config.ts';
import { importsConfigSchema, type ImportsConfig } from './imports-config.ts';
import { healthConfigSchema, type HealthConfig } from './health-config.ts';
import { ssoConfigSchema, type SsoConfig } from './sso-config.ts';

/** The validated runtime configuration. Every key is documented in the README. */
export interface Config {
  /** The profile applied (`RAMPART_PROFILE`, config/profiles/<name>.json), or null. */
  profile: string | null;
  server: { host: string; port: number; shutdownTimeoutMs: number };
  http: { maxPayloadBytes: number; validateResponses: boolean };
  database: { url: string };
  redis: { url: string | null };
  /** `GET /metrics`: off (404) until a scrape token is set. */
  metrics: { token: string | null };
  rateLimit: RateLimitConfig;
  log: { level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent' };
  auth: {
    bootstrapAdminToken: string | null;
    /** Where the first start writes the admin token it generated (mode 600); null: only the start-up banner shows it. */
    bootstrapTokenFile: string | null;
    loginTokenTtlSeconds: number;
    scrypt: { N: number; r: number; p: number };
    /** Password hashes (scrypt, 128 × N × r bytes each) running at once, process-wide. */
    maxConcurrentHashes: number;
    /** Logins that may wait for a hash slot; beyond them login answers 503 server_busy. */
    maxQueuedHashes: number;
  };
  events: { pollIntervalMs: number; gapGraceMs: number; consumerLeaseMs: number };
  health: HealthConfig;
  assets: {
    network: { minPrefixV4: number; minPrefixV6: number };
    bulk: { maxRows: number; maxBytes: number; batchSize: number };
  };
  verification: {
    resolvers: string[];
    timeoutMs: number;
    maxBodyBytes: number;
    maxRedirects: number;
    denyNetworks: string[];
  };
  findings: { bulk: { maxItems: number } };
  imports: ImportsConfig;
  sso: SsoConfig;
  exports: ExportsConfig;
  executors: ExecutorsConfig;
  playbooks: PlaybooksConfig;
  retention: RetentionConfig;
  feeds: FeedsConfig;
  outbound: OutboundConfig;
  secrets: { key: string | null; previousKeys: string[]; keyFile: string };
  webhooks: WebhooksConfig;
  stream: StreamConfig;
  siem: SiemConfig;
  scans: ScanConfig;
  plugins: {
    builtin: 'all' | string[];
    /** Admin options of built-in plugins, by plugin name (validated against each plugin's options schema). */
    builtinOptions?: Record<string, Record<string, unknown>>;
    external: ExternalPluginConfig[];
    baseDir: string;
  };
}

/** The one outbound HTTP client (core/outbound): SSRF guard, TLS trust, pool and limits. */
export interface OutboundConfig {
  requireHttps: boolean;
  allowPrivateCidrs: string[];
  caCerts: string[];
  connectTimeoutMs: number;
  defaultTimeoutMs: number;
  maxConnectionsPerOrigin: number;
  maxResponseBytes: number;
}

/** Webhook delivery: retry schedule, timeouts, workers, auto-disable. */
export interface WebhooksConfig {
  retryScheduleSeconds: number[];
  requestTimeoutMs: number;
  autoDisableAfterSeconds: number;
  workerPollIntervalMs: number;
  leaseMs: number;
  concurrency: number;
  batchSize: number;
  responseBodyMaxBytes: number;
  signatureHeader: string;
  maxPerTenant: number;
}

/** An admin-enabled third-party plugin: what to load and which capabilities it is granted. */
export interface ExternalPluginConfig {
  module: string;
  capabilities: string[];
  options: Record<string, unknown>;
}

const powerOfTwo = (value: number, helpers: Joi.CustomHelpers) =>
  Number.isInteger(Math.log2(value)) ? value : helpers.error('any.invalid');

const cidr = (value: string, helpers: Joi.CustomHelpers) =>
  AddressPolicy.invalidCidr([value]) === null ? value : helpers.error('any.invalid');

export const configSchema = Joi.object<Config>({
  profile: Joi.string().allow(null).default(null),
  server: Joi.object({
    host: Joi.string().hostname().required(),
    port: Joi.number().integer().min(0).max(65535).required(),
    shutdownTimeoutMs: Joi.number().integer().min(0).max(600000).required(),
  }).required(),
  http: Joi.object({
    maxPayloadBytes: Joi.number().integer().min(1024).max(1024 * 1024 * 1024).required(),
    validateResponses: Joi.boolean().required(),
  }).required(),
  database: Joi.object({
    url: Joi.string()
      .pattern(/^(sqlite:.+|mysql:\/\/.+|mariadb:\/\/.+)$/)
      .required()
      .messages({ 'string.pattern.base': '{#label} must be sqlite:<path> or mysql://user:pass@host:port/db' }),
  }).required(),
  redis: Joi.object({
    url: Joi.string().uri({ scheme: ['redis', 'rediss'] }).allow(null).required(),
  }).required(),
  rateLimit: rateLimitConfigSchema.required(),
  metrics: Joi.object({
    token: Joi.string().min(24).max(256).pattern(/^[\x21-\x7e]+$/).allow(null).required(),
  }).required(),
  log: Joi.object({
    level: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').required(),
  }).required(),
  auth: Joi.object({
    bootstrapAdminToken: Joi.string().min(24).max(256).pattern(/^[\x21-\x7e]+$/).allow(null).required(),
    bootstrapTokenFile: Joi.string().allow(null).default(null),
    loginTokenTtlSeconds: Joi.number().integer().min(60).max(7 * 24 * 3600).required(),
    scrypt: Joi.object({
      N: Joi.number().integer().min(1024).max(2 ** 20).custom(powerOfTwo, 'power of two').required(),
      r: Joi.number().integer().min(1).max(32).required(),
      p: Joi.number().integer().min(1).max(16).required(),
    }).required(),
    maxConcurrentHashes: Joi.number().integer().min(1).max(256).required(),
    maxQueuedHashes: Joi.number().integer().min(0).max(10_000).required(),
  }).required(),
  events: Joi.object({
    pollIntervalMs: Joi.number().integer().min(10).max(60000).required(),
    gapGraceMs: Joi.number().integer().min(0).max(600000).required(),
    consumerLeaseMs: Joi.number().integer().min(1000).max(600000).required(),
  }).required(),
  health: healthConfigSchema.required(),
  assets: Joi.object({
    network: Joi.object({
      minPrefixV4: Joi.number().integer().min(0).max(32).required(),
      minPrefixV6: Joi.number().integer().min(0).max(128).required(),
    }).required(),
    bulk: Joi.object({
      maxRows: Joi.number().integer().min(1).max(10_000_000).required(),
      maxBytes: Joi.number().integer().min(1024).max(10 * 1024 * 1024 * 1024).required(),
      batchSize: Joi.number().integer().min(1).max(5000).required(),
    }).required(),
  }).required(),
  verification: Joi.object({
    resolvers: Joi.array().items(Joi.string().pattern(/^(\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9.]+(:\d{1,5})?|[0-9a-fA-F:]+)$/)).required(),
    timeoutMs: Joi.number().integer().min(100).max(60000).required(),
    maxBodyBytes: Joi.number().integer().min(1024).max(16 * 1024 * 1024).required(),
    maxRedirects: Joi.number().integer().min(0).max(10).required(),
    denyNetworks: Joi.array().items(Joi.string()).required(),
  }).required(),
  findings: Joi.object({
    bulk: Joi.object({ maxItems: Joi.number().integer().min(1).max(100_000).required() }).required(),
  }).required(),
  imports: importsConfigSchema.required(),
  sso: ssoConfigSchema.required(),
  exports: exportsConfigSchema.required(),
  executors: executorsConfigSchema.required(),
  playbooks: playbooksConfigSchema.required(),
  retention: retentionConfigSchema.required(),
  feeds: feedsConfigSchema.required(),
  outbound: Joi.object({
    requireHttps: Joi.boolean().required(),
    allowPrivateCidrs: Joi.array().items(Joi.string().custom(cidr, 'CIDR')).required(),
    caCerts: Joi.array().items(Joi.string().pattern(/-----BEGIN CERTIFICATE-----/)).required(),
    connectTimeoutMs: Joi.number().integer().min(100).max(120000).required(),
    defaultTimeoutMs: Joi.number().integer().min(100).max(600000).required(),
    maxConnectionsPerOrigin: Joi.number().integer().min(1).max(1024).required(),
    maxResponseBytes: Joi.number().integer().min(0).max(16 * 1024 * 1024).required(),
  }).required(),
  secrets: Joi.object({
    key: Joi.string().base64().allow(null).required(),
    previousKeys: Joi.array().items(Joi.string().base64()).required(),
    keyFile: Joi.string().required(),
  }).required(),
  webhooks: Joi.object({
    retryScheduleSeconds: Joi.array().items(Joi.number().min(0).max(7 * 24 * 3600)).max(20).required(),
    requestTimeoutMs: Joi.number().integer().min(100).max(120000).required(),
    autoDisableAfterSeconds: Joi.number().min(0).required(),
    workerPollIntervalMs: Joi.number().integer().min(10).max(60000).required(),
    leaseMs: Joi.number().integer().min(1000).max(3600000).greater(Joi.ref('requestTimeoutMs')).required(),
    concurrency: Joi.number().integer().min(1).max(256).required(),
    batchSize: Joi.number().integer().min(1).max(1000).required(),
    responseBodyMaxBytes: Joi.number().integer().min(0).max(65536).required(),
    signatureHeader: Joi.string().pattern(/^[A-Za-z0-9-]+$/).required(),
    maxPerTenant: Joi.number().integer().min(1).required(),
  }).required(),
  stream: streamConfigSchema.required(),
  siem: siemConfigSchema.required(),
  scans: scanConfigSchema.required(),
  plugins: Joi.object({
    builtin: Joi.alternatives(Joi.string().valid('all'), Joi.array().items(Joi.string())).required(),
    builtinOptions: Joi.object().pattern(Joi.string(), Joi.object().unknown(true)).default({}),
    external: Joi.array()
      .items(
        Joi.object({
          module: Joi.string().min(1).required(),
          capabilities: Joi.array().items(Joi.string()).default([]),
          options: Joi.object().unknown(true).default({}),
        }),
      )
      .required(),
    baseDir: Joi.string().required(),
  }).required(),
}).required();
