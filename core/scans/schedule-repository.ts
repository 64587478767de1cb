import type { Queryable } from '../db/create-db.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';

export interface ScheduleRow {
  id: string;
  tenant_id: string;
  asset_id: string;
  name: string | null;
  cron: string;
  timezone: string;
  scan_type: string;
  priority: string;
  options: string;
  enabled: number | boolean;
  last_tick_at: number | null;
  last_scan_id: string | null;
  last_outcome: string | null;
  created_at: number;
  updated_at: number;
}

export const scheduleRepository = {
  async insert(db: Queryable, row: ScheduleRow): Promise<void> {
    await db('scan_schedules').insert(row);
  },

  /** Any tenant's schedule, for the scheduler. */
  async findAny(db: Queryable, id: string): Promise<ScheduleRow | null> {
    return ((await db('scan_schedules').where({ id }).first()) as ScheduleRow | undefined) ?? null;
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<ScheduleRow | null> {
    return ((await db('scan_schedules').where({ tenant_id: tenantId, id }).first()) as ScheduleRow | undefined) ?? null;
  },

  async list(db: Queryable, tenantId: string, filters: { asset_id?: string }, page: PageRequest): Promise<Page<ScheduleRow>> {
    const q = db('scan_schedules').where({ tenant_id: tenantId });
    if (filters.asset_id) q.where({ asset_id: filters.asset_id });
    return paginate<ScheduleRow>(q.select('*'), page, (x) => x.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
  },

  async count(db: Queryable, tenantId: string): Promise<number> {
    const row = (await db('scan_schedules').where({ tenant_id: tenantId }).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },

  async update(db: Queryable, tenantId: string, id: string, changes: Record<string, unknown>): Promise<number> {
    return db('scan_schedules').where({ tenant_id: tenantId, id }).update(changes);
  },

  async delete(db: Queryable, tenantId: string, id: string): Promise<number> {
    return db('scan_schedules').where({ tenant_id: tenantId, id }).delete();
  },

  /** What the scheduler runs: every enabled schedule, with the version stamp it watches. */
  async enabled(db: Queryable): Promise<Array<Pick<ScheduleRow, 'id' | 'tenant_id' | 'cron' | 'timezone' | 'updated_at'>>> {
    return db('scan_schedules').where({ enabled: true }).select('id', 'tenant_id', 'cron', 'timezone', 'updated_at');
  },

  /**
   * Claims one cron tick of a schedule: moves last_tick_at forward only if no process
   * has claimed this tick (or a later one). Exactly one process sees 1 row changed.
   */
  async claimTick(db: Queryable, id: string, tick: number): Promise<boolean> {
    const n = await db('scan_schedules')
      .where({ id, enabled: true })
      .andWhere((q) => q.whereNull('last_tick_at').orWhere('last_tick_at', '<', tick))
      .update({ last_tick_at: tick });
    return n > 0;
  },

  async recordOutcome(db: Queryable, id: string, scanId: string | null, outcome: string): Promise<void> {
    const changes: Record<string, unknown> = { last_outcome: outcome.slice(0, 200) };
    if (scanId) changes.last_scan_id = scanId;
    await db('scan_schedules').where({ id }).update(changes);
  },
};
