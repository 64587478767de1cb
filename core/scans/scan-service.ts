import { randomBytes } from 'node:crypto';
import type { ScanConfig } from '../../config/scan-config.ts';
import type { Db } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { callbackSecretContext } from '../webhooks/scan-callback-target.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { fromJson, toJson } from '../db/json.ts';
import { ConflictError, InputError, NotFoundError, ValidationError } from '../errors.ts';
import type { Outbox } from '../events/outbox.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import { newId } from '../ids.ts';
import { OutboundError } from '../outbound/outbound-error.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { ScanType } from '../plugin-api/index.ts';
import type { AssetType } from '../domain/asset-type.ts';
import type { Severity } from '../domain/severity.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import { toFindingListItem, type FindingListItem } from '../findings/finding-repository.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { scanCheckRepository } from './scan-check-repository.ts';
import { scanFindingRepository } from './scan-finding-repository.ts';
import { PRIORITY_RANK, scanRepository, type ScanRow } from './scan-repository.ts';
import type { ScanFilters, ScanPriority } from './scan-fields.ts';
import { knownCategories, planChecks, type PlannedCheck } from './scan-planner.ts';
import { denyList, staticDenial, targetOf } from './scan-scope.ts';
import { SCAN_TYPE_SERVED_BY } from './scan-types.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { toScanView, toStatusView, type ScanStatusView, type ScanView } from './scan-views.ts';
import { activeScanRefusal } from './active-scan-rule.ts';
import { toCheckOutcome } from './check-outcomes.ts';
import { scopeProblem, scopeView, withScopeOption, type ScanScopeView } from './url-scope.ts';

export interface ScanInput {
  asset_id: string;
  scan_type: ScanType;
  options?: Record<string, unknown>;
  priority?: ScanPriority;
  callback_url?: string;
  callback_secret?: string;
}

export interface CreatedScan {
  row: ScanRow;
  /** Seconds, from measured check durations; null when none of the planned checks was ever measured. */
  estimatedSeconds: number | null;
  estimatedMinutes: number;
  /** Generated when a callback_url came without a secret; shown once. */
  callbackSecret: string | null;
}

/** Assumed length of a check never measured, for the first estimates. */
const UNMEASURED_CHECK_MS = 30_000;


export interface ScanServiceDeps {
  db: Db;
  outbox: Outbox<EventPayloads>;
  plugins: PluginRegistry;
  config: ScanConfig;
  outbound: OutboundHttpClient;
  secretBox: SecretBox;
  /** Called after a scan was queued or cancelled, so local workers react at once. */
  onQueued?: () => void;
  onCancelled?: (scanId: string) => void;
}

/** Scan lifecycle on the API side: create (queue), read, status, cancel, results. */
export class ScanService {
  readonly #d: ScanServiceDeps;

  constructor(deps: ScanServiceDeps) {
    this.#d = deps;
  }

  /**
   * 400 validation_failed naming each option a loaded scanner refuses (e.g. `options.ports`
   * of "70000-80000"), so a scan or schedule that could never run is not stored.
   */
  checkOptions(options: Record<string, unknown>): void {
    const problems = this.#d.plugins.scanOptionProblems(options);
    if (!problems.length) return;
    const details = problems.map((p) => ({ field: p.option ? `options.${p.option}` : 'options', message: p.message }));
    throw new ValidationError(`Invalid scan options: ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`, details);
  }

  /**
   * The checks a scan of this type would run on this asset; 400 when none can serve it,
   * when active checks are asked for an asset that may not get them, or when `ports`
   * contradicts the origin-only scope of a composed scan of a URL.
   */
  plan(scanType: ScanType, asset: { type: AssetType; name?: string; verified?: boolean | number }, options: Record<string, unknown>): PlannedCheck[] {
    const refusal = asset.name === undefined ? null : activeScanRefusal(this.#d.config, { ...asset, name: asset.name }, options);
    if (refusal) throw new InputError(refusal, 'active_scan_not_allowed');
    const outOfScope = scopeProblem(scanType, asset, options);
    if (outOfScope) throw new ValidationError(`Invalid scan options: options.ports: ${outOfScope}`, [{ field: 'options.ports', message: outOfScope }]);
    const categories = Array.isArray(options.categories) ? (options.categories as string[]) : [];
    if (scanType === 'custom' && !categories.length) {
      throw new InputError(`A custom scan needs options.categories (available: ${knownCategories(this.#d.plugins).join(', ') || 'none'}).`, 'categories_required');
    }
    const planned = planChecks(this.#d.plugins, scanType, asset.type, categories, { active: options.active === true });
    if (!planned.length) {
      const served = SCAN_TYPE_SERVED_BY[scanType];
      throw new InputError(
        `No loaded scanner can run a "${scanType}" scan of a ${asset.type} asset${served === 'all' ? '' : ` (it needs a scanner serving ${served.join(' or ')} for ${asset.type} assets)`}${scanType === 'custom' ? ` with categories ${categories.join(', ')}` : ''}.`,
        'scan_type_not_supported',
        { scan_type: scanType, asset_type: asset.type },
      );
    }
    return planned;
  }

  async create(tenantId: string, input: ScanInput, extra: { scheduleId?: string } = {}): Promise<CreatedScan> {
    const { db, config } = this.#d;
    const asset = await assetRepository.findById(db, tenantId, input.asset_id);
    if (!asset) throw new NotFoundError('Asset');
    if (config.requireVerifiedAsset && !asset.verified) {
      throw new InputError('The asset\'s ownership is not verified; verify it (POST /api/assets/{id}/verify) before scanning it.', 'asset_not_verified', { asset_id: asset.id });
    }
    const denial = staticDenial(targetOf(asset), denyList(config));
    if (denial) throw new InputError(`Scanning this asset is not allowed: ${denial}`, 'target_denied', { asset_id: asset.id });
    const options = withScopeOption(input.scan_type, asset, input.options ?? {});
    this.checkOptions(options);
    const planned = this.plan(input.scan_type, asset, options);
    if (input.callback_url) {
      try {
        await this.#d.outbound.checkUrl(input.callback_url);
      } catch (err) {
        if (err instanceof OutboundError) throw new InputError(`callback_url is not acceptable: ${err.message}`, 'invalid_callback_url');
        throw err;
      }
    }
    const averages = await scanCheckRepository.averages(db, planned.map((p) => p.checkId));
    const totalMs = planned.reduce((sum, p) => sum + (averages.get(p.checkId) ?? UNMEASURED_CHECK_MS), 0);
    const estimatedSecondsAll = Math.ceil(totalMs / Math.min(planned.length, config.pool.checkConcurrency) / 1000);
    const callbackSecret = input.callback_url ? (input.callback_secret ?? `whsec_${randomBytes(24).toString('base64')}`) : null;
    const now = Date.now();
    const id = newId('scn', now);
    const row: ScanRow = {
      id, tenant_id: tenantId, asset_id: asset.id, active_asset_id: asset.id, scan_type: input.scan_type, status: 'queued',
      priority: input.priority ?? 'normal', priority_rank: PRIORITY_RANK[input.priority ?? 'normal'], options: toJson(options),
      callback_url: input.callback_url ?? null, callback_secret_sealed: callbackSecret ? this.#d.secretBox.seal(callbackSecret, callbackSecretContext(id)) : null,
      schedule_id: extra.scheduleId ?? null, progress: 0, current_phase: 'queued', eta_seconds: estimatedSecondsAll, estimated_seconds: estimatedSecondsAll,
      checks_total: planned.length, checks_done: 0, checks_failed: 0, finding_count: 0, finding_summary: toJson({ critical: 0, high: 0, medium: 0, low: 0, info: 0 }),
      error: null, claims: 0, locked_by: null, locked_until: 0, deadline_at: null, progress_emitted_at: 0, created_at: now, started_at: null, completed_at: null, updated_at: now,
    };
    try {
      await this.#d.outbox.transaction(async ({ trx, emit }) => {
        await scanRepository.insert(trx, row);
        await scanCheckRepository.insertPlan(trx, id, planned);
        await emit({ tenantId, kind: 'scan.created', assetId: asset.id, data: { scan_id: id, asset_id: asset.id, scan_type: input.scan_type, priority: row.priority } });
        await changeClock.markChanged(trx, tenantId, 'scans', now);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const active = await scanRepository.activeForAsset(db, asset.id);
      throw new ConflictError(`A scan of this asset is already ${active?.status ?? 'queued or running'}; wait for it or cancel it.`, 'scan_in_progress', { scan_id: active?.id ?? null });
    }
    this.#d.onQueued?.();
    const measured = planned.some((p) => averages.has(p.checkId));
    return { row: { ...row, asset_name: asset.name }, estimatedSeconds: measured ? estimatedSecondsAll : null, estimatedMinutes: Math.max(1, Math.ceil(estimatedSecondsAll / 60)), callbackSecret: input.callback_url && !input.callback_secret ? callbackSecret : null };
  }

  async #row(tenantId: string, id: string): Promise<ScanRow> {
    const row = await scanRepository.findById(this.#d.db, tenantId, id);
    if (!row) throw new NotFoundError('Scan');
    return row;
  }

  /** The scan with every planned check's outcome (status, error, duration, warnings). */
  async get(tenantId: string, id: string): Promise<ScanView> {
    const row = await this.#row(tenantId, id);
    const checks = await scanCheckRepository.forScan(this.#d.db, row.id);
    return { ...toScanView(row), check_results: checks.map(toCheckOutcome) };
  }

  async status(tenantId: string, id: string): Promise<ScanStatusView> {
    return toStatusView(await this.#row(tenantId, id));
  }

  /** When the tenant's scan list last changed (change clock), or null if never: the list's Last-Modified. */
  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#d.db, tenantId, 'scans');
  }

  /** updated_at of the tenant's scan (epoch ms), or null when there is none: for Last-Modified. */
  async updatedAt(tenantId: string, id: string): Promise<number | null> {
    const row = await scanRepository.findById(this.#d.db, tenantId, id);
    return row ? Number(row.updated_at) : null;
  }

  async list(tenantId: string, filters: ScanFilters, page: PageRequest): Promise<Page<ScanView>> {
    const result = await scanRepository.list(this.#d.db, tenantId, filters, page);
    return { total: result.total, rows: result.rows.map(toScanView) };
  }

  /** queued or running -> cancelled (409 scan_finished otherwise). Findings stay. */
  async cancel(tenantId: string, id: string): Promise<ScanView> {
    const row = await this.#row(tenantId, id);
    const now = Date.now();
    // A running scan's worker writes the same scan and change-clock rows; MariaDB may pick
    // this short transaction as the deadlock victim, and running it again is the remedy.
    const done = await retryOnDeadlock(() =>
      this.#d.db.transaction(async (trx) => {
        const ok = await scanRepository.cancel(trx, tenantId, id, now);
        if (ok) await changeClock.markChanged(trx, tenantId, 'scans', now);
        return ok;
      }),
    );
    if (!done) throw new ConflictError(`The scan is already ${(await this.#row(tenantId, id)).status}; only queued or running scans can be cancelled.`, 'scan_finished', { scan_id: row.id });
    this.#d.onCancelled?.(id);
    return this.get(tenantId, id);
  }

  /** The scan's findings, and what the scan covered (`scope`, for composed scans of a URL). */
  async results(tenantId: string, id: string, severity: Severity[] | undefined, page: PageRequest): Promise<Page<FindingListItem> & { scope: ScanScopeView | null }> {
    const row = await this.#row(tenantId, id);
    const result = await scanFindingRepository.results(this.#d.db, tenantId, id, severity, page);
    const scope = row.asset_type ? scopeView(row.scan_type, { type: row.asset_type as AssetType, name: row.asset_name ?? '' }, fromJson<Record<string, unknown>>(row.options, {})) : null;
    return { total: result.total, rows: result.rows.map(toFindingListItem), scope };
  }
}
