import { dialectOf, type Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { toIsoRequired } from '../time.ts';
import type { GapClock } from './gap-clock.ts';
import { readablePrefix, type HoleState } from './readable-prefix.ts';
import type { PlatformEvent } from '../plugin-api/index.ts';
import type { StoredEventKind } from '../domain/event-kinds.ts';
import { insertBatched } from '../db/insert-batches.ts';

export interface NewEvent {
  tenantId: string | null;
  kind: StoredEventKind;
  assetId?: string | null;
  data: Record<string, unknown>;
}

interface EventRow {
  id: number | string;
  tenant_id: string | null;
  kind: string;
  asset_id: string | null;
  data: string;
  created_at: number;
}

function toEvent(row: EventRow): PlatformEvent {
  return {
    id: String(row.id),
    kind: row.kind,
    tenantId: row.tenant_id,
    assetId: row.asset_id,
    timestamp: toIsoRequired(row.created_at),
    data: fromJson<Record<string, unknown>>(row.data, {}),
  };
}

export interface ReadFilter {
  tenantId?: string;
  kinds?: readonly string[];
  assetId?: string;
  /** Only events created at or after this epoch-ms time. */
  since?: number;
}

// MariaDB answers NOWAIT with "lock wait timeout"; MySQL 8 with its own code.
const LOCKED = new Set([1205, 3572]);

export const eventRepository = {
  async append(db: Queryable, event: NewEvent, now: number): Promise<number> {
    const [id] = await db('events').insert({
      tenant_id: event.tenantId,
      kind: event.kind,
      asset_id: event.assetId ?? null,
      data: toJson(event.data),
      created_at: now,
    });
    return Number(id);
  },

  /** Appends many events in multi-row inserts (bulk imports emit one event per record). */
  async appendMany(db: Queryable, events: NewEvent[], now: number): Promise<void> {
    await insertBatched(db, 'events', events.map((event) => ({
      tenant_id: event.tenantId, kind: event.kind, asset_id: event.assetId ?? null, data: toJson(event.data), created_at: now,
    })));
  },

  /**
   * Events with id > afterId in id order. Ids come from AUTO_INCREMENT, and on
   * MariaDB a transaction holding a lower id may commit after one holding a higher
   * id; a reader that moved its cursor past that hole would lose the event. So the
   * batch stops before a hole that an open transaction still holds
   * (`probeHole` asks the database; readable-prefix.ts walks the holes) and the reader
   * comes back later; a hole nothing holds (a rolled-back insert) is passed at once.
   * With the reader's `gaps` clock, a hole held for `gapGraceMs` since the reader first
   * saw it is passed too: a stuck transaction does not stop every reader.
   */
  async readAfter(db: Queryable, afterId: number, limit: number, gapGraceMs: number, filter: ReadFilter = {}, now = Date.now(), gaps?: GapClock): Promise<{ events: PlatformEvent[]; lastSeenId: number }> {
    const rows = (await db('events').where('id', '>', afterId).orderBy('id', 'asc').limit(limit)) as EventRow[];
    const taken = await readablePrefix(rows.map((r) => Number(r.id)), afterId, (a, b) => eventRepository.probeHole(db, a, b), gapGraceMs, now, gaps);
    const accepted = rows.slice(0, taken);
    const lastSeenId = accepted.length ? Number(accepted[accepted.length - 1]!.id) : afterId;
    gaps?.passed(lastSeenId);
    const events = accepted
      .filter((r) => filter.tenantId === undefined || r.tenant_id === filter.tenantId)
      .filter((r) => !filter.kinds || filter.kinds.includes(r.kind))
      .filter((r) => filter.assetId === undefined || r.asset_id === filter.assetId)
      .filter((r) => filter.since === undefined || Number(r.created_at) >= filter.since)
      .map(toEvent);
    return { events, lastSeenId };
  },

  /**
   * Are the missing ids strictly between `afterId` and `beforeId` held by open
   * transactions? An insert that has not committed keeps its new row locked, so a
   * locking read over the range fails at once (NOWAIT) if any such row is there, and
   * otherwise returns what is committed. SQLite has one writer, whose open insert is
   * always above every committed id: `null`, no hole can be held there.
   */
  async probeHole(db: Queryable, afterId: number, beforeId: number): Promise<HoleState | null> {
    if (dialectOf(db) !== 'mysql') return null;
    try {
      const [rows] = (await db.raw('SELECT id FROM events WHERE id > ? AND id < ? LOCK IN SHARE MODE NOWAIT', [afterId, beforeId])) as [Array<{ id: number | string }>];
      return { open: false, committed: rows.map((r) => Number(r.id)) };
    } catch (err) {
      if (LOCKED.has((err as { errno?: number }).errno ?? 0)) return { open: true };
      throw err;
    }
  },

  async latestId(db: Queryable): Promise<number> {
    const row = (await db('events').max({ id: 'id' }).first()) as { id: number | string | null } | undefined;
    return Number(row?.id ?? 0);
  },

  async findById(db: Queryable, id: number): Promise<PlatformEvent | null> {
    const row = (await db('events').where({ id }).first()) as EventRow | undefined;
    return row ? toEvent(row) : null;
  },

  /** Removes events older than `before` (epoch ms); consumers' cursors are unaffected. */
  async prune(db: Queryable, before: number): Promise<number> {
    return db('events').where('created_at', '<', before).delete();
  },
};
