import type { Knex } from 'knex';
import { dialectOf, type Queryable } from '../db/create-db.ts';
import { isRetryableTxError } from '../db/retry-deadlock.ts';
import { applyMatch, claimPasses, resolveSpec, type ClaimPass, type LeaseQueueSpec, type Match, type ResolvedSpec } from './lease-queue-spec.ts';

export type { LeaseQueueSpec, Match } from './lease-queue-spec.ts';

export interface ClaimOptions {
  /** Unique per claim (core/work/instance-id.ts `claimToken`): every later write is guarded by it. */
  token: string;
  /** The caller's clock, epoch ms: leases, due times and expiry are judged against it. */
  now: number;
  leaseMs: number;
  /** How many rows at most; default 1. */
  limit?: number;
  /** Values of the spec's `shareColumn` not to claim now (they hold their fair share of the caller's slots). */
  skipKeys?: readonly string[];
}

/** Thrown inside a claim transaction to undo it (a per-key limit was overrun by a concurrent claim). */
class Overrun extends Error {}

/**
 * The one durable work queue: claim / renew (heartbeat) / update / finish / release, every
 * write after the claim guarded by the claim's token, so a worker that lost its lease
 * (it stalled, another took the row over) writes nothing. SQLite has one writer: a
 * claim is one conditional `UPDATE … WHERE id IN (SELECT … LIMIT n)`. MariaDB/MySQL lock
 * the candidates with `SELECT … FOR UPDATE SKIP LOCKED` in a short transaction, so
 * concurrent workers take disjoint rows without waiting on each other.
 */
export class LeaseQueue {
  readonly spec: ResolvedSpec;
  readonly #passes: ClaimPass[];

  constructor(spec: LeaseQueueSpec) {
    this.spec = resolveSpec(spec);
    this.#passes = claimPasses(this.spec);
  }

  /** Claims up to `limit` claimable rows for `token`; returns their ids (none: nothing is due). */
  async claim(db: Queryable, o: ClaimOptions): Promise<string[]> {
    const want = o.limit ?? 1;
    // With a per-key limit each claim is checked on its own: a batch could overrun a key by itself.
    const step = this.spec.perKey ? 1 : want;
    const ids = new Set<string>();
    while (ids.size < want) {
      const before = ids.size;
      for (const pass of this.#passes) {
        const limit = Math.min(step, want - before) - (ids.size - before);
        if (limit <= 0) break;
        const got = dialectOf(db) === 'sqlite' ? await this.#claimSqlite(db, pass, o, limit) : await this.#claimLocking(db, pass, o, limit);
        for (const id of got) ids.add(id);
      }
      if (ids.size - before < step) break;
    }
    return [...ids];
  }

  #candidates(db: Queryable, pass: ClaimPass, now: number, limit: number, skipKeys?: readonly string[]): Knex.QueryBuilder {
    const { table, idColumn } = this.spec;
    const q = db(table).select(idColumn);
    pass.filter(q, db, now);
    if (skipKeys?.length && this.spec.shareColumn) q.whereNotIn(this.spec.shareColumn, [...skipKeys]);
    return q.orderBy(pass.order).limit(limit);
  }

  #claimed(db: Queryable, o: ClaimOptions): Record<string, unknown> {
    const { tokenColumn, leaseColumn, onClaim } = this.spec;
    return { ...(onClaim?.(db, o.now) ?? {}), [tokenColumn]: o.token, [leaseColumn]: o.now + o.leaseMs };
  }

  async #claimSqlite(db: Queryable, pass: ClaimPass, o: ClaimOptions, limit: number): Promise<string[]> {
    const { table, idColumn } = this.spec;
    // One statement: atomic under SQLite's single writer, and it waits on busy_timeout. RETURNING names the rows it
    // took; reading them back by token scanned the whole table (no index on the token), per claim.
    const rows = (await db(table).whereIn(idColumn, this.#candidates(db, pass, o.now, limit, o.skipKeys)).update(this.#claimed(db, o), [idColumn])) as Array<Record<string, string | number>>;
    return rows.map((r) => String(r[idColumn]));
  }

  async #claimLocking(db: Queryable, pass: ClaimPass, o: ClaimOptions, limit: number): Promise<string[]> {
    const { table, idColumn, perKey, leaseColumn } = this.spec;
    try {
      return await db.transaction(async (trx) => {
        const picked = (await this.#candidates(trx, pass, o.now, limit, o.skipKeys).forUpdate().skipLocked()) as Array<Record<string, string | number>>;
        const ids = picked.map((r) => String(r[idColumn]));
        if (!ids.length) return [];
        await trx(table).whereIn(idColumn, ids).update(this.#claimed(trx, o));
        if (perKey) {
          // The candidate filter counted a snapshot; a locking read waits for concurrent
          // claims of the same key to commit, so the limit holds under real concurrency.
          const key = (await trx(table).where(idColumn, ids[0]!).first(perKey.column)) as Record<string, unknown>;
          const live = await trx(table).where(perKey.column, key[perKey.column] as string).where(leaseColumn, '>=', o.now).select(idColumn).forUpdate();
          if (live.length > perKey.limit) throw new Overrun();
        }
        return ids;
      });
    } catch (err) {
      // Lost a race (the key is full) or was picked as a deadlock victim: nothing claimed this time.
      if (err instanceof Overrun || isRetryableTxError(err)) return [];
      throw err;
    }
  }

  /** Takes one known row (a named cursor, a singleton job) when its lease has ended or `token` already holds it. */
  async claimById(db: Queryable, id: string, o: Omit<ClaimOptions, 'limit'>): Promise<boolean> {
    const { table, idColumn, tokenColumn, leaseColumn } = this.spec;
    const n = await db(table)
      .where(idColumn, id)
      .andWhere((q) => q.where(tokenColumn, o.token).orWhere(leaseColumn, '<', o.now))
      .update(this.#claimed(db, o));
    return n > 0;
  }

  #held(db: Queryable, id: string, token: string, also: Match = {}): Knex.QueryBuilder {
    const { table, idColumn, tokenColumn, held } = this.spec;
    return applyMatch(applyMatch(db(table).where(idColumn, id).where(tokenColumn, token), held ?? {}), also);
  }

  /** Heartbeat: extends the lease to `until`; false when the row is no longer `token`'s (finished, cancelled, taken over). */
  async renew(db: Queryable, id: string, token: string, until: number): Promise<boolean> {
    return (await this.#held(db, id, token).update({ [this.spec.leaseColumn]: until })) > 0;
  }

  /**
   * Writes to a row `token` still holds, keeping the lease (progress, a cursor); false when it is no longer held.
   * `also`: what else must still hold in the same statement (no cancel asked for, no wake-up since the claim).
   */
  async update(db: Queryable, id: string, token: string, changes: Record<string, unknown>, also?: Match): Promise<boolean> {
    return (await this.#held(db, id, token, also).update(changes)) > 0;
  }

  /** Records the outcome (`changes`: done, failed, retry at a due time…) and lets the row go, if `token` still holds it (and `also` matches). */
  async finish(db: Queryable, id: string, token: string, changes: Record<string, unknown>, also?: Match): Promise<boolean> {
    return this.update(db, id, token, { ...changes, [this.spec.tokenColumn]: null, [this.spec.leaseColumn]: 0 }, also);
  }

  /**
   * Lets every row matching `where` (and `refine`) go with `changes`, whoever holds it: the
   * owning side ending work (a cancel, a deadline, a revoked holder), whose holder's later
   * token-guarded writes then find nothing. Returns how many rows it ended.
   */
  async endWhere(db: Queryable, where: Match, changes: Record<string, unknown>, refine?: (q: Knex.QueryBuilder) => void): Promise<number> {
    const q = applyMatch(db(this.spec.table), where);
    refine?.(q);
    return q.update({ ...changes, [this.spec.tokenColumn]: null, [this.spec.leaseColumn]: 0 });
  }

  /** Gives the row back unfinished (shutdown): claimable again at once. `changes` (default: the spec's `onRelease`) undo what the claim set. */
  async release(db: Queryable, id: string, token: string, changes?: Record<string, unknown>, now = Date.now()): Promise<boolean> {
    return this.finish(db, id, token, changes ?? this.spec.onRelease?.(db, now) ?? {});
  }

  /** Gives back many rows of one claim never worked on (shutdown): `release` in one statement per 500 rows. */
  async releaseMany(db: Queryable, ids: readonly string[], token: string): Promise<number> {
    const { table, idColumn, tokenColumn, leaseColumn } = this.spec;
    let n = 0;
    for (let i = 0; i < ids.length; i += 500) {
      n += await db(table).whereIn(idColumn, ids.slice(i, i + 500)).where(tokenColumn, token).update({ ...(this.spec.onRelease?.(db, Date.now()) ?? {}), [tokenColumn]: null, [leaseColumn]: 0 });
    }
    return n;
  }

  /** Of `ids`, those asked to stop (`cancelWhen`) or gone (deleted with their parent): their workers abort them. */
  async cancelled(db: Queryable, ids: readonly string[]): Promise<string[]> {
    if (!ids.length) return [];
    const { table, idColumn, cancelWhen } = this.spec;
    const rows = (await db(table).whereIn(idColumn, [...ids]).select(idColumn, ...Object.keys(cancelWhen ?? {}))) as Array<Record<string, unknown>>;
    const present = new Map(rows.map((r) => [String(r[idColumn]), r]));
    return ids.filter((id) => {
      const row = present.get(id);
      return !row || (cancelWhen !== undefined && matches(row, cancelWhen));
    });
  }

  /** Held rows whose lease lapsed (their worker died), oldest lease first: what a lost-lease sweep ends. */
  async lost<Row>(db: Queryable, now: number, limit: number): Promise<Row[]> {
    const { table, leaseColumn, held } = this.spec;
    return applyMatch(db(table), held ?? {}).where(leaseColumn, '<', now).orderBy(leaseColumn).limit(limit) as unknown as Promise<Row[]>;
  }

  /** Ends a lost row with `changes` if it is still lost (another sweeper, or a reclaim, may have got there first). */
  async finishLost(db: Queryable, id: string, now: number, changes: Record<string, unknown>): Promise<boolean> {
    const { table, idColumn, tokenColumn, leaseColumn, held } = this.spec;
    const n = await applyMatch(db(table).where(idColumn, id), held ?? {}).where(leaseColumn, '<', now).update({ ...changes, [tokenColumn]: null, [leaseColumn]: 0 });
    return n > 0;
  }

  /** Ends a row nobody holds now (its lease is free or lapsed) and that still matches `from` (a cancel of a waiting row). */
  async finishFree(db: Queryable, id: string, now: number, from: Match, changes: Record<string, unknown>): Promise<boolean> {
    const { table, idColumn, tokenColumn, leaseColumn } = this.spec;
    const n = await applyMatch(db(table).where(idColumn, id), from)
      .andWhere((q) => q.whereNull(tokenColumn).orWhere(leaseColumn, '<', now))
      .update({ ...changes, [tokenColumn]: null, [leaseColumn]: 0 });
    return n > 0;
  }
}

/** Whether a row read back matches `m` (booleans come back as 0/1 from both engines). */
function matches(row: Record<string, unknown>, m: Match): boolean {
  return Object.entries(m).every(([column, want]) => {
    const got = row[column];
    if (Array.isArray(want)) return want.some((w) => String(w) === String(got));
    if (want === null) return got === null || got === undefined;
    if (typeof want === 'boolean') return Boolean(Number(got)) === want || got === want;
    return String(got) === String(want);
  });
}
