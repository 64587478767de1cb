import type { Queryable } from '../db/create-db.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import { findingCounterRepository, type DayCell, type GridCell } from './finding-counter-repository.ts';
import { DAY_MS, findingRecountRepository } from './finding-recount-repository.ts';

/** A finding's status move, as the counters need it. */
export interface StatusMove {
  tenantId: string;
  findingId: string;
  severityRank: number;
  from: FindingStatus;
  to: FindingStatus;
  now: number;
}

export const utcDay = (ms: number): number => ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);

/** Sums deltas per tenant and cell before anything is written: one upsert per cell and transaction. */
class Deltas {
  readonly grid = new Map<string, Map<string, GridCell>>();
  readonly days = new Map<string, Map<number, DayCell>>();

  addGrid(tenantId: string, severityRank: number, status: FindingStatus, n: number): void {
    const cells = this.grid.get(tenantId) ?? this.grid.set(tenantId, new Map()).get(tenantId)!;
    const key = `${severityRank}\u0000${status}`;
    const cell = cells.get(key) ?? cells.set(key, { severityRank, status, n: 0 }).get(key)!;
    cell.n += n;
  }

  addDay(tenantId: string, day: number, created: number, resolved: number): void {
    const days = this.days.get(tenantId) ?? this.days.set(tenantId, new Map()).get(tenantId)!;
    const cell = days.get(day) ?? days.set(day, { day, created: 0, resolved: 0 }).get(day)!;
    cell.created += created;
    cell.resolved += resolved;
  }

  async write(db: Queryable): Promise<void> {
    for (const tenantId of [...new Set([...this.grid.keys(), ...this.days.keys()])].sort()) {
      await findingCounterRepository.addGrid(db, tenantId, [...(this.grid.get(tenantId)?.values() ?? [])]);
      await findingCounterRepository.addDays(db, tenantId, [...(this.days.get(tenantId)?.values() ?? [])]);
    }
  }
}

/**
 * Keeps finding_counters and finding_daily (migration 018) in step with the findings
 * table. Every function runs in the caller's transaction, next to the write it accounts
 * for, so the counters commit or roll back with it; the definitions are those of
 * findingRecountRepository, which `rampart admin findings recount` checks them against.
 */
export const findingCounters = {
  /** New findings: one in their (severity, status) cell, one `created` on their creation day. */
  async inserted(db: Queryable, findings: Iterable<{ tenantId: string; severityRank: number; status: FindingStatus; createdAt: number }>): Promise<void> {
    const d = new Deltas();
    for (const f of findings) {
      d.addGrid(f.tenantId, f.severityRank, f.status, 1);
      d.addDay(f.tenantId, utcDay(f.createdAt), 1, 0);
    }
    await d.write(db);
  },

  /**
   * Status moves, to be called AFTER their history entries are written and after the
   * asset's risk update: a move to `resolved` counts on its day only if the finding has no
   * earlier move to resolved that day (the trend counts distinct findings per day). Last
   * in the transaction, so the counter rows (shared by the whole tenant) are locked after
   * the asset row, in the order a finding insert takes them, and held briefly.
   */
  async moved(db: Queryable, moves: Iterable<StatusMove>): Promise<void> {
    const d = new Deltas();
    const resolvedNow = new Map<string, { move: StatusMove; day: number; n: number }>();
    for (const m of moves) {
      if (m.from === m.to) continue;
      d.addGrid(m.tenantId, m.severityRank, m.from, -1);
      d.addGrid(m.tenantId, m.severityRank, m.to, 1);
      if (m.to !== 'resolved') continue;
      const day = utcDay(m.now);
      const key = `${m.findingId}\u0000${day}`;
      const seen = resolvedNow.get(key) ?? resolvedNow.set(key, { move: m, day, n: 0 }).get(key)!;
      seen.n += 1;
    }
    for (const { move, day, n } of resolvedNow.values()) {
      // The history already holds these n moves; any more that day were counted before.
      if ((await findingRecountRepository.resolutionsOn(db, move.findingId, day)) <= n) d.addDay(move.tenantId, day, 0, 1);
    }
    await d.write(db);
  },

  /**
   * To be called before an asset is deleted (its findings and their history go with it by
   * ON DELETE CASCADE): subtracts what its findings count for. Reads lock the findings on
   * MariaDB, so no status change of one of them commits between this and the delete.
   */
  async assetRemoved(db: Queryable, tenantId: string, assetId: string): Promise<void> {
    const scope = { tenantId, assetId };
    const grid = await findingRecountRepository.grid(db, scope, true);
    const days = await findingRecountRepository.days(db, scope, true);
    const d = new Deltas();
    for (const c of grid) d.addGrid(tenantId, c.severityRank, c.status, -c.n);
    for (const c of days) d.addDay(tenantId, c.day, -c.created, -c.resolved);
    await d.write(db);
  },
};

/** An asset's share of the counters, as a recount computes it: taken before and after a change too complex to account for move by move. */
export interface AssetShare {
  grid: GridCell[];
  days: DayCell[];
}

export const assetShare = {
  async read(db: Queryable, tenantId: string, assetId: string): Promise<AssetShare> {
    const scope = { tenantId, assetId };
    return { grid: await findingRecountRepository.grid(db, scope, true), days: await findingRecountRepository.days(db, scope, true) };
  },

  /** Adds the difference between two shares of one asset to the tenant's counters (a merge or a split). */
  async applyChange(db: Queryable, tenantId: string, before: AssetShare, after: AssetShare): Promise<void> {
    const d = new Deltas();
    for (const c of before.grid) d.addGrid(tenantId, c.severityRank, c.status, -c.n);
    for (const c of after.grid) d.addGrid(tenantId, c.severityRank, c.status, c.n);
    for (const c of before.days) d.addDay(tenantId, c.day, -c.created, -c.resolved);
    for (const c of after.days) d.addDay(tenantId, c.day, c.created, c.resolved);
    await d.write(db);
  },
};
