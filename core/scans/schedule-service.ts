import cron from 'node-cron';
import type { Db } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { ScanType } from '../plugin-api/index.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { scheduleRepository, type ScheduleRow } from './schedule-repository.ts';
import { toIso, toIsoRequired } from '../time.ts';
import type { ScanService } from './scan-service.ts';

export interface ScheduleInput {
  asset_id: string;
  cron: string;
  scan_type: ScanType;
  name?: string | null;
  timezone?: string;
  priority?: 'low' | 'normal' | 'high';
  options?: Record<string, unknown>;
  enabled?: boolean;
}

export interface ScheduleView {
  id: string;
  asset_id: string;
  name: string | null;
  cron: string;
  timezone: string;
  scan_type: string;
  priority: string;
  options: Record<string, unknown>;
  enabled: boolean;
  next_run_at: string | null;
  last_run_at: string | null;
  last_scan_id: string | null;
  last_outcome: string | null;
  created_at: string;
  updated_at: string;
}

const SILENT = { info() {}, warn() {}, error() {}, debug() {} };

/** The next time a cron expression fires, or null (node-cron computes it; nothing is scheduled). */
export function nextRun(expression: string, timezone: string): Date | null {
  const task = cron.createTask(expression, () => undefined, { timezone, logger: SILENT });
  try {
    return task.getNextRuns(1)[0] ?? null;
  } finally {
    void task.destroy();
  }
}

function validCron(expression: string, timezone: string): void {
  if (!cron.validate(expression)) throw new InputError(`"${expression}" is not a valid cron expression (5 fields, or 6 with seconds first).`, 'invalid_cron');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new InputError(`"${timezone}" is not an IANA time zone.`, 'invalid_timezone');
  }
}

export function toScheduleView(row: ScheduleRow): ScheduleView {
  const enabled = Boolean(row.enabled);
  return {
    id: row.id, asset_id: row.asset_id, name: row.name, cron: row.cron, timezone: row.timezone, scan_type: row.scan_type, priority: row.priority,
    options: fromJson<Record<string, unknown>>(row.options, {}), enabled,
    next_run_at: enabled ? (nextRun(row.cron, row.timezone)?.toISOString() ?? null) : null,
    last_run_at: toIso(row.last_tick_at), last_scan_id: row.last_scan_id, last_outcome: row.last_outcome,
    created_at: toIsoRequired(row.created_at), updated_at: toIsoRequired(row.updated_at),
  };
}

/** Scheduled scans: CRUD of recurring scans of an asset; ScanScheduler runs them. */
export class ScheduleService {
  readonly #db: Db;
  readonly #scans: ScanService;
  readonly #maxPerTenant: number;
  readonly #onChange: () => void;

  constructor(db: Db, scans: ScanService, maxPerTenant: number, onChange: () => void = () => undefined) {
    this.#db = db;
    this.#scans = scans;
    this.#maxPerTenant = maxPerTenant;
    this.#onChange = onChange;
  }

  /** `checkOptions` is false on an update that leaves the stored options as they are. */
  async #validate(tenantId: string, s: { asset_id: string; cron: string; timezone: string; scan_type: ScanType; options: Record<string, unknown> }, checkOptions = true): Promise<void> {
    validCron(s.cron, s.timezone);
    if (checkOptions) this.#scans.checkOptions(s.options);
    const asset = await assetRepository.findById(this.#db, tenantId, s.asset_id);
    if (!asset) throw new NotFoundError('Asset');
    this.#scans.plan(s.scan_type, asset, s.options);
  }

  async create(tenantId: string, input: ScheduleInput): Promise<ScheduleView> {
    const s = { ...input, timezone: input.timezone ?? 'UTC', options: input.options ?? {} };
    await this.#validate(tenantId, s);
    if ((await scheduleRepository.count(this.#db, tenantId)) >= this.#maxPerTenant) {
      throw new ConflictError(`A tenant may have at most ${this.#maxPerTenant} schedules.`, 'schedule_limit_reached');
    }
    const now = Date.now();
    const row: ScheduleRow = {
      id: newId('sch', now), tenant_id: tenantId, asset_id: s.asset_id, name: s.name ?? null, cron: s.cron, timezone: s.timezone, scan_type: s.scan_type,
      priority: s.priority ?? 'normal', options: toJson(s.options), enabled: s.enabled ?? true, last_tick_at: null, last_scan_id: null, last_outcome: null,
      created_at: now, updated_at: now,
    };
    await this.#db.transaction(async (trx) => {
      await scheduleRepository.insert(trx, row);
      await changeClock.markChanged(trx, tenantId, 'schedules', now);
    });
    this.#onChange();
    return toScheduleView(row);
  }

  async get(tenantId: string, id: string): Promise<ScheduleView> {
    const row = await scheduleRepository.findById(this.#db, tenantId, id);
    if (!row) throw new NotFoundError('Schedule');
    return toScheduleView(row);
  }

  /** When the tenant's schedule list last changed (change clock), or null if never: the list's Last-Modified. */
  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'schedules');
  }

  async list(tenantId: string, filters: { asset_id?: string }, page: PageRequest): Promise<Page<ScheduleView>> {
    const result = await scheduleRepository.list(this.#db, tenantId, filters, page);
    return { total: result.total, rows: result.rows.map(toScheduleView) };
  }

  async update(tenantId: string, id: string, changes: Partial<Omit<ScheduleInput, 'asset_id'>>): Promise<ScheduleView> {
    const row = await scheduleRepository.findById(this.#db, tenantId, id);
    if (!row) throw new NotFoundError('Schedule');
    const merged = {
      asset_id: row.asset_id, cron: changes.cron ?? row.cron, timezone: changes.timezone ?? row.timezone, scan_type: (changes.scan_type ?? row.scan_type) as ScanType,
      options: changes.options ?? fromJson<Record<string, unknown>>(row.options, {}),
    };
    await this.#validate(tenantId, merged, changes.options !== undefined);
    const now = Date.now();
    const update: Record<string, unknown> = { cron: merged.cron, timezone: merged.timezone, scan_type: merged.scan_type, options: toJson(merged.options), updated_at: now };
    if (changes.name !== undefined) update.name = changes.name;
    if (changes.priority !== undefined) update.priority = changes.priority;
    if (changes.enabled !== undefined) update.enabled = changes.enabled;
    await this.#db.transaction(async (trx) => {
      await scheduleRepository.update(trx, tenantId, id, update);
      await changeClock.markChanged(trx, tenantId, 'schedules', now);
    });
    this.#onChange();
    return this.get(tenantId, id);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    const now = Date.now();
    await this.#db.transaction(async (trx) => {
      if (!(await scheduleRepository.delete(trx, tenantId, id))) throw new NotFoundError('Schedule');
      await changeClock.markChanged(trx, tenantId, 'schedules', now);
    });
    this.#onChange();
  }
}
