import type { Knex } from 'knex';
import type { Db, Queryable } from '../db/create-db.ts';
import { dialectOf } from '../db/create-db.ts';
import { insertBatched } from '../db/insert-batches.ts';
import type { FeedKind, FeedSource } from './feed-types.ts';

/** The table each feed's rows live in, and the columns a change is judged on. */
export const FEED_TABLES: Record<FeedKind, { table: string; compared: string[] }> = {
  kev: { table: 'kev_entries', compared: ['vendor_project', 'product', 'vulnerability_name', 'date_added', 'short_description', 'required_action', 'due_date', 'known_ransomware', 'notes', 'cwes'] },
  epss: { table: 'epss_scores', compared: ['epss', 'percentile'] },
};

export interface FeedLoadRow {
  id: string;
  feed: FeedKind;
  source_kind: 'file' | 'url';
  source: string;
  status: 'staging' | 'current' | 'superseded' | 'refused';
  feed_date: string | null;
  feed_version: string | null;
  row_count: number;
  added: number;
  removed: number;
  changed: number;
  sha256: string | null;
  bytes: number;
  error: string | null;
  started_at: number;
  loaded_at: number | null;
}

const DELETE_BATCH = 5000;

/** A knex instance, or a builder factory on another query's connection (for subqueries). */
export type TableSource = (table: string) => Knex.QueryBuilder;

/** The only place that builds SQL over the feed tables (migration 035). */
export const feedRepository = {
  async startLoad(db: Queryable, id: string, feed: FeedKind, source: FeedSource, now: number): Promise<void> {
    await db('feed_loads').insert({ id, feed, source_kind: source.kind, source: source.location.slice(0, 2048), status: 'staging', started_at: now });
  },

  /** Rows of a load that is still staging: invisible to readers until the swap. */
  async stage(db: Queryable, feed: FeedKind, loadId: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    await insertBatched(db, FEED_TABLES[feed].table, rows.map((r) => ({ load_id: loadId, ...r })));
  },

  /** Of `cves`, those a staging load already holds (to name a duplicate). */
  async stagedAmong(db: Queryable, feed: FeedKind, loadId: string, cves: string[]): Promise<string[]> {
    return (await db(FEED_TABLES[feed].table).where('load_id', loadId).whereIn('cve_id', cves).pluck('cve_id')) as string[];
  },

  async refuse(db: Queryable, id: string, error: string, sha256: string | null, bytes: number): Promise<void> {
    await db('feed_loads').where({ id }).update({ status: 'refused', error: error.slice(0, 4000), sha256, bytes });
  },

  /**
   * Makes a staged load the feed in force, in one transaction: locks the feed's pointer,
   * records which CVEs the load added, removed or changed against the load in force, moves
   * the pointer and marks both loads. Returns the previous load id and the change counts.
   */
  async swap(db: Db, feed: FeedKind, load: { id: string; feedDate: string; feedVersion: string; rows: number; sha256: string; bytes: number }, now: number): Promise<{ previous: string | null; added: number; removed: number; changed: number }> {
    const { table, compared } = FEED_TABLES[feed];
    return db.transaction(async (trx) => {
      // Two loads of one feed at once: the second waits here and diffs against the first (SQLite has one writer anyway).
      const read = trx('feeds_current').where({ feed });
      if (dialectOf(trx) === 'mysql') read.forUpdate();
      const pointer = (await read.first('load_id')) as { load_id: string | null } | undefined;
      const previous = pointer?.load_id ?? null;
      const neq = compared.map((c) => `n.${c} <> o.${c}`).join(' or ');
      await trx.raw(`insert into feed_changes (load_id, cve_id, kind) select ?, n.cve_id, 'added' from ${table} n left join ${table} o on o.load_id = ? and o.cve_id = n.cve_id where n.load_id = ? and o.cve_id is null`, [load.id, previous ?? '', load.id]);
      await trx.raw(`insert into feed_changes (load_id, cve_id, kind) select ?, o.cve_id, 'removed' from ${table} o left join ${table} n on n.load_id = ? and n.cve_id = o.cve_id where o.load_id = ? and n.cve_id is null`, [load.id, load.id, previous ?? '']);
      await trx.raw(`insert into feed_changes (load_id, cve_id, kind) select ?, n.cve_id, 'changed' from ${table} n join ${table} o on o.load_id = ? and o.cve_id = n.cve_id where n.load_id = ? and (${neq})`, [load.id, previous ?? '', load.id]);
      const counts = (await trx('feed_changes').where('load_id', load.id).select('kind').count({ n: '*' }).groupBy('kind')) as Array<{ kind: string; n: number | string }>;
      const count = (kind: string) => Number(counts.find((c) => c.kind === kind)?.n ?? 0);
      const result = { previous, added: count('added'), removed: count('removed'), changed: count('changed') };
      await trx('feeds_current').where({ feed }).update({ load_id: load.id, updated_at: now });
      if (previous) await trx('feed_loads').where({ id: previous }).update({ status: 'superseded' });
      await trx('feed_loads').where({ id: load.id }).update({
        status: 'current', feed_date: load.feedDate, feed_version: load.feedVersion, row_count: load.rows, sha256: load.sha256, bytes: load.bytes,
        added: result.added, removed: result.removed, changed: result.changed, loaded_at: now,
      });
      return result;
    });
  },

  /** Deletes the rows of a load that is not in force (refused, superseded), a batch per statement. */
  async dropRows(db: Queryable, feed: FeedKind, loadId: string): Promise<number> {
    return deleteByCve(db, FEED_TABLES[feed].table, loadId);
  },

  /** Loads whose rows may go: superseded or refused ones, and staging ones abandoned before `staleBefore` (their process died). */
  async leftovers(db: Queryable, feed: FeedKind, staleBefore: number): Promise<string[]> {
    const current = db('feeds_current').where({ feed }).whereNotNull('load_id').select('load_id');
    return (await db('feed_loads').where({ feed }).whereNotIn('id', current)
      .andWhere((q) => q.whereIn('status', ['superseded', 'refused']).orWhere((s) => s.where('status', 'staging').where('started_at', '<', staleBefore)))
      .whereExists((q) => q.select(db.raw('1')).from(FEED_TABLES[feed].table).whereRaw(`${FEED_TABLES[feed].table}.load_id = feed_loads.id`))
      .pluck('id')) as string[];
  },

  async abandonStale(db: Queryable, feed: FeedKind, staleBefore: number): Promise<void> {
    await db('feed_loads').where({ feed, status: 'staging' }).where('started_at', '<', staleBefore).update({ status: 'refused', error: 'abandoned: the process loading it stopped' });
  },

  /** Keeps the change sets of the newest `keep` accepted loads of a feed; deletes older ones. */
  async trimChanges(db: Queryable, feed: FeedKind, keep: number): Promise<void> {
    const accepted = (await db('feed_loads').where({ feed }).whereIn('status', ['current', 'superseded']).orderBy('loaded_at', 'desc').offset(keep).limit(1000).pluck('id')) as string[];
    for (const id of accepted) await deleteByCve(db, 'feed_changes', id);
  },

  async currentLoads(db: Queryable): Promise<FeedLoadRow[]> {
    return (await db('feed_loads').join('feeds_current', 'feeds_current.load_id', 'feed_loads.id').select('feed_loads.*')) as FeedLoadRow[];
  },

  async recentLoads(db: Queryable, feed: FeedKind, limit: number): Promise<FeedLoadRow[]> {
    return (await db('feed_loads').where({ feed }).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit)) as FeedLoadRow[];
  },

  /** Rows of the load in force of `feed` for `cves` (at most a few hundred), with the load's date and version. */
  async inForceRows(db: Queryable, feed: FeedKind, cves: string[]): Promise<Array<Record<string, string | number>>> {
    const { table } = FEED_TABLES[feed];
    return (await db(table)
      .join('feeds_current', function () {
        this.on('feeds_current.load_id', '=', `${table}.load_id`).andOnVal('feeds_current.feed', '=', feed);
      })
      .join('feed_loads', 'feed_loads.id', `${table}.load_id`)
      .whereIn(`${table}.cve_id`, cves)
      .select(`${table}.*`, 'feed_loads.feed_version', 'feed_loads.feed_date')) as Array<Record<string, string | number>>;
  },

  /**
   * A subquery selecting the CVEs of the load in force of `feed` (EPSS: those scoring at
   * least `minScore`), for another feature's `cve in (…)`; reads the primary key (load_id, cve_id).
   */
  inForceCves(db: TableSource, feed: FeedKind, minScore?: number): Knex.QueryBuilder {
    const { table } = FEED_TABLES[feed];
    const q = db(table).where('load_id', db('feeds_current').where({ feed }).select('load_id')).select('cve_id');
    if (feed === 'epss' && minScore !== undefined) q.where('epss', '>=', minScore);
    return q;
  },

  /** A scalar subquery: the highest EPSS score in force among the CVEs `cves` selects (null when none has one). */
  highestEpss(db: TableSource, cves: Knex.QueryBuilder): Knex.QueryBuilder {
    return db('epss_scores').where('load_id', db('feeds_current').where({ feed: 'epss' }).select('load_id')).whereIn('cve_id', cves).max({ m: 'epss' });
  },

  /** When any feed's load in force last changed (epoch ms), 0 if never. */
  async currentChangedAt(db: Queryable): Promise<number> {
    const row = (await db('feeds_current').max({ m: 'updated_at' }).first()) as { m: number | string | null } | undefined;
    return Number(row?.m ?? 0);
  },

  async changes(db: Queryable, loadId: string, after: string | undefined, limit: number): Promise<Array<{ cve_id: string; kind: 'added' | 'removed' | 'changed' }>> {
    const q = db('feed_changes').where('load_id', loadId).orderBy('cve_id').limit(limit).select('cve_id', 'kind');
    if (after) q.where('cve_id', '>', after);
    return (await q) as Array<{ cve_id: string; kind: 'added' | 'removed' | 'changed' }>;
  },

  /** The scheduled fetch's row of each feed. */
  async fetchRows(db: Queryable): Promise<Array<Record<string, unknown>>> {
    return (await db('feed_fetches').select()) as Array<Record<string, unknown>>;
  },

  /** Creates a feed's schedule row, due at `dueAt`, unless it exists (it keeps its time). */
  async ensureFetchRow(db: Queryable, feed: FeedKind, dueAt: number): Promise<void> {
    await db('feed_fetches').insert({ feed, due_at: dueAt, locked_by: null, locked_until: 0, failures: 0 }).onConflict('feed').ignore();
  },

  async fetchFailures(db: Queryable, feed: FeedKind): Promise<number> {
    const row = (await db('feed_fetches').where({ feed }).first('failures')) as { failures: number } | undefined;
    return Number(row?.failures ?? 0);
  },

  async loadById(db: Queryable, id: string): Promise<FeedLoadRow | undefined> {
    return (await db('feed_loads').where({ id }).first()) as FeedLoadRow | undefined;
  },
};

async function deleteByCve(db: Queryable, table: string, loadId: string): Promise<number> {
  let total = 0;
  for (;;) {
    const cves = (await db(table).where('load_id', loadId).limit(DELETE_BATCH).pluck('cve_id')) as string[];
    if (!cves.length) return total;
    total += await db(table).where('load_id', loadId).whereIn('cve_id', cves).delete();
    if (cves.length < DELETE_BATCH) return total;
  }
}
