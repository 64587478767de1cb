import type { Db } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { MAX_ROWS_PER_INSERT } from '../db/insert-batches.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { newId } from '../ids.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { readEpss } from './epss-reader.ts';
import { FeedInput } from './feed-input.ts';
import { feedRepository as repo } from './feed-repository.ts';
import { FeedRefusedError, type FeedHeader, type FeedKind, type FeedLoadResult, type FeedSource } from './feed-types.ts';
import { readKev } from './kev-reader.ts';

export interface FeedStoreOptions {
  /** Largest feed accepted, compressed or not (feeds.maxBytes). */
  maxBytes: number;
  /** Change sets kept per feed (feeds.keepChangeSets). */
  keepChangeSets: number;
  clock?: () => number;
}

/** A staging load older than this belongs to a process that died: its rows are removed by the next load. */
const STALE_STAGING_MS = 6 * 3_600_000;

/**
 * The feed store: every load of the KEV catalog or of EPSS scores, from a file or a
 * download, goes through `load`. The feed streams into staging rows under the load's own
 * id, batch by batch (memory stays flat however large the feed); only a feed read to its
 * end without a fault becomes the feed in force, in one transaction that also records the
 * CVEs it added, removed or changed (core/feeds/feed-repository.ts `swap`). A refused feed
 * is recorded with its error, its staged rows removed, and the previous feed stays.
 */
export class FeedStore {
  readonly #listeners: Array<(result: FeedLoadResult) => Promise<void> | void> = [];

  constructor(
    private readonly db: Db,
    private readonly options: FeedStoreOptions,
  ) {}

  /**
   * Called after each accepted load, with its change counts; the changed CVEs are read with
   * `changedCves(db, result.loadId)` (core/feeds/feed-lookup.ts). A listener's failure is
   * its own: the load stays accepted.
   */
  onLoaded(listener: (result: FeedLoadResult) => Promise<void> | void): void {
    this.#listeners.push(listener);
  }

  async load(feed: FeedKind, source: FeedSource, bytes: AsyncIterable<Buffer | string>): Promise<FeedLoadResult> {
    const { db } = this;
    const now = this.#now();
    const loadId = newId('fdl', now);
    await repo.startLoad(db, loadId, feed, source, now);
    const input = new FeedInput(feed, bytes, this.options.maxBytes);
    let staged: { header: FeedHeader; rows: number };
    try {
      staged = feed === 'kev' ? await this.#stageKev(loadId, input) : await this.#stageEpss(loadId, input);
    } catch (err) {
      await repo.refuse(db, loadId, errorMessage(err), input.bytes ? input.sha256 : null, input.bytes);
      await repo.dropRows(db, feed, loadId);
      throw err;
    }
    const loadedAt = this.#now();
    let swapped;
    try {
      swapped = await retryOnDeadlock(() => repo.swap(db, feed, { id: loadId, ...staged.header, rows: staged.rows, sha256: input.sha256, bytes: input.bytes }, loadedAt));
    } catch (err) {
      await repo.refuse(db, loadId, `not brought into force: ${errorMessage(err)}`, input.sha256, input.bytes);
      await repo.dropRows(db, feed, loadId);
      throw err;
    }
    const result: FeedLoadResult = {
      loadId, feed, source, ...staged.header, rows: staged.rows, added: swapped.added, removed: swapped.removed, changed: swapped.changed, sha256: input.sha256, bytes: input.bytes, loadedAt,
    };
    await this.#cleanUp(feed, loadedAt);
    for (const listener of this.#listeners) await Promise.resolve().then(() => listener(result)).catch(() => {});
    return result;
  }

  async #stageKev(loadId: string, input: FeedInput): Promise<{ header: FeedHeader; rows: number }> {
    const parts: Buffer[] = [];
    for await (const chunk of input.content()) parts.push(chunk);
    const { header, rows } = readKev(Buffer.concat(parts).toString('utf8'));
    parts.length = 0;
    await repo.stage(this.db, 'kev', loadId, rows as unknown as Array<Record<string, unknown>>);
    return { header, rows: rows.length };
  }

  async #stageEpss(loadId: string, input: FeedInput): Promise<{ header: FeedHeader; rows: number }> {
    let header: FeedHeader | null = null;
    let batch: Array<Record<string, unknown>> = [];
    let rows = 0;
    const flush = async () => {
      try {
        await repo.stage(this.db, 'epss', loadId, batch);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        throw new FeedRefusedError('epss', `line ${rows - batch.length + 3}–${rows + 2}`, `a CVE is listed twice (${await this.#duplicate(loadId, batch)})`);
      }
      batch = [];
    };
    for await (const row of readEpss(input.content(), (h) => (header = h))) {
      batch.push(row as unknown as Record<string, unknown>);
      rows++;
      if (batch.length >= MAX_ROWS_PER_INSERT) await flush();
    }
    if (batch.length) await flush();
    return { header: header!, rows };
  }

  async #duplicate(loadId: string, batch: Array<Record<string, unknown>>): Promise<string> {
    const cves = batch.map((r) => String(r.cve_id));
    const inBatch = cves.find((c, i) => cves.indexOf(c) !== i);
    return inBatch ?? (await repo.stagedAmong(this.db, 'epss', loadId, cves))[0] ?? 'unknown';
  }

  /** Removes rows no load in force needs (the superseded load, refused and abandoned ones) and old change sets. */
  async #cleanUp(feed: FeedKind, now: number): Promise<void> {
    const staleBefore = now - STALE_STAGING_MS;
    await repo.abandonStale(this.db, feed, staleBefore);
    for (const id of await repo.leftovers(this.db, feed, staleBefore)) await repo.dropRows(this.db, feed, id);
    await repo.trimChanges(this.db, feed, this.options.keepChangeSets);
  }

  #now(): number {
    return (this.options.clock ?? Date.now)();
  }
}
