import type { Knex } from 'knex';
import type { Queryable } from '../db/create-db.ts';

/** Column = value, or column IN values: the simple row conditions a queue is described by. */
export type Match = Record<string, string | number | boolean | null | readonly (string | number)[]>;

/**
 * A queue described by data: which table, which rows are ready, which are held, in what
 * order and with which limits. The claim logic (core/work/lease-queue.ts) exists once;
 * each feature keeps its own table and states.
 */
export interface LeaseQueueSpec {
  table: string;
  /** Primary key column; default `id`. */
  idColumn?: string;
  /** The lease holder's token; default `locked_by`. */
  tokenColumn?: string;
  /** Lease end, epoch ms (0 when nobody holds the row); default `locked_until`. */
  leaseColumn?: string;
  /** Rows waiting to run, e.g. `{ status: 'queued' }`. A row is only claimable while its lease has ended. */
  ready: Match;
  /** Extra readiness a Match cannot say (e.g. the row's webhook is active). */
  readyWhere?: (q: Knex.QueryBuilder, db: Queryable) => void;
  /**
   * Rows a worker holds, e.g. `{ status: 'running' }`: renew, update, finish and release
   * require it. With `reclaim`, a held row whose lease ran out (its worker died) is
   * claimable again.
   */
  held?: Match;
  /** 'first': expired held rows before any ready row (oldest lease first); 'inOrder': mixed with ready rows in `order`. */
  reclaim?: 'first' | 'inOrder';
  /** Higher values are claimed first (before `order`). */
  priorityColumn?: string;
  /** Delayed retry: a ready row is claimable once this time (epoch ms) has passed. */
  dueColumn?: string;
  /** Order among ready rows after priority, e.g. age. */
  order: Array<{ column: string; order?: 'asc' | 'desc' }>;
  /** At most `limit` rows sharing a value of `column` (a tenant, an action) are held at once. */
  perKey?: { column: string; limit: number };
  /** Columns set on claim besides token and lease (e.g. status, attempt count). */
  onClaim?: (db: Queryable, now: number) => Record<string, unknown>;
  /** What a release (shutdown) undoes of the claim, e.g. back to `queued`, one claim fewer. */
  onRelease?: (db: Queryable, now: number) => Record<string, unknown>;
  /** A held row matching this was asked to stop (a cancel flag, a cancelled status): its worker aborts it. */
  cancelWhen?: Match;
  /** The column fair shares are kept by (a tenant): a claim can skip the keys that hold their share. */
  shareColumn?: string;
}

/** The spec with defaults filled in. */
export interface ResolvedSpec extends LeaseQueueSpec {
  idColumn: string;
  tokenColumn: string;
  leaseColumn: string;
}

export function resolveSpec(spec: LeaseQueueSpec): ResolvedSpec {
  return { ...spec, idColumn: spec.idColumn ?? 'id', tokenColumn: spec.tokenColumn ?? 'locked_by', leaseColumn: spec.leaseColumn ?? 'locked_until' };
}

export function applyMatch(q: Knex.QueryBuilder, match: Match): Knex.QueryBuilder {
  for (const [column, value] of Object.entries(match)) {
    if (Array.isArray(value)) q.whereIn(column, value as readonly (string | number)[]);
    else if (value === null) q.whereNull(column);
    else q.where(column, value as string | number | boolean);
  }
  return q;
}

/** One way of picking candidates: a filter and an order, tried in turn until enough rows are claimed. */
export interface ClaimPass {
  filter(q: Knex.QueryBuilder, db: Queryable, now: number): void;
  order: Array<{ column: string; order?: 'asc' | 'desc' }>;
}

/** The passes a spec claims with: expired held rows first, or mixed in with ready rows. */
export function claimPasses(s: ResolvedSpec): ClaimPass[] {
  const ready = (q: Knex.QueryBuilder, db: Queryable, now: number) => {
    applyMatch(q, s.ready);
    s.readyWhere?.(q, db);
    if (s.dueColumn) q.where(s.dueColumn, '<=', now);
  };
  const held = (q: Knex.QueryBuilder) => applyMatch(q, s.held ?? {});
  const readyOrder = [...(s.priorityColumn ? [{ column: s.priorityColumn, order: 'desc' as const }] : []), ...s.order];
  const free = (q: Knex.QueryBuilder, now: number) => {
    q.where(s.leaseColumn, '<', now);
    if (s.perKey) {
      // Correlated: the candidate's own key, counted among rows whose lease still runs.
      q.whereRaw('(select count(*) from ?? as lease_peer where lease_peer.?? = ??.?? and lease_peer.?? >= ?) < ?', [
        s.table, s.perKey.column, s.table, s.perKey.column, s.leaseColumn, now, s.perKey.limit,
      ]);
    }
  };
  const readyPass: ClaimPass = { filter: (q, db, now) => void (ready(q, db, now), free(q, now)), order: readyOrder };
  if (!s.held || !s.reclaim) return [readyPass];
  if (s.reclaim === 'first') {
    return [{ filter: (q, _db, now) => void (held(q), free(q, now)), order: [{ column: s.leaseColumn }] }, readyPass];
  }
  return [{
    filter: (q, db, now) => {
      q.where((either) => either.where((r) => ready(r, db, now)).orWhere((h) => held(h)));
      free(q, now);
    },
    order: readyOrder,
  }];
}
