import Joi from 'joi';
import { recordId, severityCountsSchema } from '../../core/http/common-schemas.ts';
import { pageQuery } from '../../core/http/pagination.ts';
import { SCAN_PRIORITIES, SCAN_STATUSES } from '../../core/scans/scan-fields.ts';
import { SCAN_TYPES } from '../../core/scans/scan-types.ts';
import { findingFilterKeys } from '../findings/finding-schemas.ts';

const iso = Joi.string().isoDate();
const scanType = Joi.string().valid(...SCAN_TYPES);
const severityCounts = severityCountsSchema('ScanFindingSummary');

export const scanIdParams = Joi.object({
  id: recordId('scn', 'a scan id').required(),
});
export const scheduleIdParams = Joi.object({
  id: recordId('sch', 'a schedule id').required(),
});
const assetId = recordId('ast', 'an asset id');

/** `?format=flat` selects the spec's flat response variant; `wrapped` (default) the `{data}` one. */
export const formatQuery = Joi.object({
  format: Joi.string().valid('wrapped', 'flat').default('wrapped').description('Response variant: `wrapped` ({data:{…}}, default) or `flat` (fields at the top level).'),
});

/**
 * Options of both variants. Variant A: follow_redirects, max_depth, timeout, enable_bruteforce
 * (defaults applied). Variant B: depth, include_subdomains, categories. `ports` belongs to
 * the port scanner, `resolvers` to the dns scanner. Anything else is a 400.
 */
const scanOptionKeys = {
  follow_redirects: Joi.boolean().default(true),
  max_depth: Joi.number().integer().min(0).max(100).default(5).description('Crawl depth for web application scans.'),
  timeout: Joi.number().integer().min(1).max(7 * 24 * 3600).default(3600).description('Scan time limit in seconds; the scan then fails with error "timeout", keeping its findings.'),
  enable_bruteforce: Joi.boolean().default(false),
  depth: Joi.string().max(32).description('Variant B depth (e.g. quick, standard, deep); passed to scanners.'),
  include_subdomains: Joi.boolean(),
  categories: Joi.array().items(Joi.string().pattern(/^[a-z0-9_-]+$/).max(64)).max(50).unique().description('Check categories of a `custom` scan (required for it).'),
  ports: Joi.string()
    .max(2000)
    .pattern(/^(top|all|top:\d{1,5}|\d{1,5}(-\d{1,5})?(,\d{1,5}(-\d{1,5})?)*)$/)
    .description('Port scanner: `top` (default, the common ports), `top:N`, `all` (1-65535), or a list/ranges such as `22,80,8000-8100`.'),
  resolvers: Joi.array()
    .items(Joi.string().max(64).pattern(/^(\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?|\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)$/))
    .max(5)
    .description('DNS scanner: resolvers to ask (`ip`, `ip:port` or `[ipv6]:port`); default the system resolvers.'),
  active: Joi.boolean().description('Web scanner: also run the active checks (reflected XSS, SQL injection, path traversal, OS command and template injection), which send attack payloads and submit forms. Only for verified assets, or loopback assets under the loopback trial (scans.requireVerifiedAsset and scans.denySelf false); otherwise 400 active_scan_not_allowed.'),
  include_host: Joi.boolean().description('Composed scans (full, quick, custom) of a URL asset: false (stored by default) scans the URL\'s origin only (its port); true also scans the rest of the host (the `ports` option and the TLS services found there).'),
};
export const scanOptions = Joi.object(scanOptionKeys).default().label('ScanOptions');
const scanOptionsChange = Joi.object(scanOptionKeys).label('ScanOptions');

export const createScanPayload = Joi.object({
  asset_id: assetId.required(),
  scan_type: scanType.required().description('Variant A: full, quick, web_app, network, api, ssl. Variant B: full, quick, custom, api_discovery, ssl, dns, port.'),
  options: scanOptions,
  priority: Joi.string().valid(...SCAN_PRIORITIES).default('normal'),
  callback_url: Joi.string().uri({ scheme: ['http', 'https'] }).max(2048).description('Receives a signed POST with the final summary when the scan completes or fails.'),
  callback_secret: Joi.string().min(16).max(200).description('Signs the callback (HMAC-SHA256); generated and returned once as callback_secret when omitted with a callback_url.'),
}).label('CreateScan');

export const createdScanSchema = Joi.object({
  scan_id: Joi.string().required(),
  asset_id: Joi.string().required(),
  scan_type: scanType.required(),
  status: Joi.string().valid('queued').required(),
  priority: Joi.string().valid(...SCAN_PRIORITIES).required(),
  created_at: iso.required(),
  estimated_duration_minutes: Joi.number().integer().min(1).required(),
  callback_secret: Joi.string().description('Only when a callback_url was given without a secret: shown once.'),
}).label('CreatedScan');

export const createdScanFlatSchema = Joi.object({
  scan_id: Joi.string().required(),
  status: Joi.string().valid('queued').required(),
  created_at: iso.required(),
  estimated_duration: Joi.number().integer().min(0).allow(null).required().description('Seconds; null until the planned checks have been measured.'),
  callback_secret: Joi.string(),
}).label('CreatedScanFlat');

export const scanScopeSchema = Joi.object({
  mode: Joi.string().valid('origin', 'host').required().description('`origin`: only the URL\'s origin was scanned (default); `host`: the rest of the host too (options.include_host).'),
  origin: Joi.string().required(),
  host: Joi.string().required(),
  ports: Joi.array().items(Joi.number().integer().min(1).max(65535)).allow(null).required().description('The ports the port scanner was limited to; null when the `ports` option applied.'),
})
  .label('ScanScope')
  .description('What a composed scan (full, quick, custom) of a URL asset covered; null for other scans.');

export const checkOutcomeSchema = Joi.object({
  check_id: Joi.string().required(),
  plugin: Joi.string().required(),
  category: Joi.string().required(),
  status: Joi.string().valid('pending', 'completed', 'error', 'timeout', 'cancelled').required(),
  error: Joi.string().allow(null).required(),
  duration_ms: Joi.number().integer().min(0).allow(null).required(),
  finding_count: Joi.number().integer().min(0).required(),
  completed_at: iso.allow(null).required(),
  warnings: Joi.array().items(Joi.string()).required().description('What the check could not do although it finished (pages it could not fetch, a request budget it used up).'),
}).label('CheckOutcome');

export const scanSchema = Joi.object({
  scan_id: Joi.string().required(),
  asset_id: Joi.string().required(),
  asset_name: Joi.string().required(),
  scan_type: scanType.required(),
  status: Joi.string().valid(...SCAN_STATUSES).required(),
  priority: Joi.string().valid(...SCAN_PRIORITIES).required(),
  progress: Joi.number().integer().min(0).max(100).required(),
  current_phase: Joi.string().allow(null).required(),
  finding_summary: severityCounts.required(),
  finding_count: Joi.number().integer().min(0).required(),
  options: Joi.object().unknown(true).required(),
  callback_url: Joi.string().allow(null).required(),
  schedule_id: Joi.string().allow(null).required(),
  error: Joi.string().allow(null).required().description('Why a failed scan failed (e.g. `timeout`).'),
  checks: Joi.object({
    total: Joi.number().integer().min(0).required(),
    done: Joi.number().integer().min(0).required(),
    failed: Joi.number().integer().min(0).required().description('Checks that ran and failed (error or timeout): a `completed` scan with failed checks is partial, and check_results says why.'),
  }).required(),
  scope: scanScopeSchema.allow(null).required(),
  check_results: Joi.array().items(checkOutcomeSchema).description('Scan detail only: every planned check with its outcome.'),
  estimated_duration_minutes: Joi.number().integer().allow(null).required(),
  started_at: iso.allow(null).required(),
  completed_at: iso.allow(null).required(),
  duration_seconds: Joi.number().integer().min(0).allow(null).required(),
  created_at: iso.required(),
}).label('Scan');

export const scanStatusSchema = Joi.object({
  scan_id: Joi.string().required(),
  status: Joi.string().valid(...SCAN_STATUSES).required(),
  progress: Joi.number().integer().min(0).max(100).required(),
  current_phase: Joi.string().allow(null).required(),
  eta_seconds: Joi.number().integer().min(0).allow(null).required(),
}).label('ScanStatus');

export const scanListQuery = Joi.object({
  status: Joi.string().valid(...SCAN_STATUSES),
  asset_id: assetId,
  scan_type: scanType,
  from: iso.description('Scans created at or after this time (ISO 8601).'),
  to: iso.description('Scans created at or before this time (ISO 8601).'),
  ...pageQuery,
}).label('ScanListQuery');

export const resultsQuery = Joi.object({ severity: findingFilterKeys.severity, ...pageQuery }).label('ScanResultsQuery');

export const schedulePayload = Joi.object({
  asset_id: assetId.required(),
  cron: Joi.string().trim().min(9).max(120).required().description('node-cron expression: 5 fields, or 6 with seconds first; evaluated in `timezone`.'),
  scan_type: scanType.required(),
  name: Joi.string().trim().min(1).max(200).allow(null),
  timezone: Joi.string().max(64).default('UTC').description('IANA time zone of the cron expression.'),
  priority: Joi.string().valid(...SCAN_PRIORITIES).default('normal'),
  options: scanOptions,
  enabled: Joi.boolean().default(true),
}).label('CreateSchedule');

export const scheduleUpdatePayload = Joi.object({
  cron: Joi.string().trim().min(9).max(120),
  scan_type: scanType,
  name: Joi.string().trim().min(1).max(200).allow(null),
  timezone: Joi.string().max(64),
  priority: Joi.string().valid(...SCAN_PRIORITIES),
  options: scanOptionsChange.description('Replaces the options.'),
  enabled: Joi.boolean(),
})
  .min(1)
  .label('UpdateSchedule');

export const scheduleSchema = Joi.object({
  id: Joi.string().required(),
  asset_id: Joi.string().required(),
  name: Joi.string().allow(null).required(),
  cron: Joi.string().required(),
  timezone: Joi.string().required(),
  scan_type: scanType.required(),
  priority: Joi.string().valid(...SCAN_PRIORITIES).required(),
  options: Joi.object().unknown(true).required(),
  enabled: Joi.boolean().required(),
  next_run_at: iso.allow(null).required(),
  last_run_at: iso.allow(null).required().description('The last cron tick that queued (or tried to queue) a scan.'),
  last_scan_id: Joi.string().allow(null).required(),
  last_outcome: Joi.string().allow(null).required().description('`queued`, or `skipped: <code>` (e.g. scan_in_progress).'),
  created_at: iso.required(),
  updated_at: iso.required(),
}).label('Schedule');

export const scheduleListQuery = Joi.object({ asset_id: assetId, ...pageQuery }).label('ScheduleListQuery');
