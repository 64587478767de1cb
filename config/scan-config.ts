import Joi from 'joi';
import { AddressPolicy } from '../core/outbound/address-policy.ts';

/** `scans` section: safety rules, the worker and its piscina pool, schedules, callbacks. */
export interface ScanConfig {
  /** Refuse scans of assets whose ownership is not verified (400 asset_not_verified). */
  requireVerifiedAsset: boolean;
  /** CIDRs never scanned, whatever the asset (cloud metadata, link-local…). */
  denyNetworks: string[];
  /** Also deny the platform host itself: loopback and the addresses of its own interfaces. */
  denySelf: boolean;
  worker: {
    /** Scans one worker process runs at the same time. */
    concurrency: number;
    pollIntervalMs: number;
    /** A scan's lease; renewed every heartbeatMs while it runs. */
    leaseMs: number;
    /** Lease renewal and cancel detection interval (cancel takes effect within about this). */
    heartbeatMs: number;
    /** Claims of one scan before a lost worker's scan is failed rather than resumed. */
    maxClaims: number;
  };
  pool: {
    /** piscina threads per worker process. */
    maxThreads: number;
    /** Checks of one scan run at the same time. */
    checkConcurrency: number;
    /** Time limit of one check. */
    checkTimeoutMs: number;
  };
  /** scan.progress events of one scan at most this often. */
  progressIntervalMs: number;
  scheduler: { pollIntervalMs: number; maxPerTenant: number };
  callbacks: { pollIntervalMs: number; leaseMs: number; requestTimeoutMs: number; retryScheduleSeconds: number[] };
}

const cidr = (value: string, helpers: Joi.CustomHelpers) => (AddressPolicy.invalidCidr([value]) === null ? value : helpers.error('any.invalid'));
const int = (min: number, max: number) => Joi.number().integer().min(min).max(max).required();

export const scanConfigSchema = Joi.object<ScanConfig>({
  requireVerifiedAsset: Joi.boolean().required(),
  denyNetworks: Joi.array().items(Joi.string().custom(cidr, 'CIDR')).required(),
  denySelf: Joi.boolean().required(),
  worker: Joi.object({
    concurrency: int(1, 256),
    pollIntervalMs: int(10, 60_000),
    leaseMs: int(1000, 3_600_000),
    heartbeatMs: int(50, 60_000),
    maxClaims: int(1, 100),
  }).required(),
  pool: Joi.object({
    maxThreads: int(1, 256),
    checkConcurrency: int(1, 256),
    checkTimeoutMs: int(100, 24 * 3_600_000),
  }).required(),
  progressIntervalMs: int(0, 3_600_000),
  scheduler: Joi.object({ pollIntervalMs: int(100, 60_000), maxPerTenant: int(1, 100_000) }).required(),
  callbacks: Joi.object({
    pollIntervalMs: int(10, 60_000),
    leaseMs: int(1000, 3_600_000),
    requestTimeoutMs: int(100, 120_000),
    retryScheduleSeconds: Joi.array().items(Joi.number().min(0).max(7 * 24 * 3600)).max(20).required(),
  }).required(),
});
