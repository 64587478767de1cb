import type { FeedsConfig } from '../../config/feeds-config.ts';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import { errorMessage } from '../work/coerce-error.ts';
import { LeaseQueue } from '../work/lease-queue.ts';
import { LeaseWorker, type Lease } from '../work/lease-worker.ts';
import { feedRepository } from './feed-repository.ts';
import { safeLocation } from './feed-status.ts';
import type { FeedStore } from './feed-store.ts';
import { FEEDS, type FeedKind, type FeedLoadResult } from './feed-types.ts';

const MAX_REDIRECTS = 5;

/** A URL's user info as a Basic authorization header, and the URL without it (the outbound client refuses credentials in URLs). */
export function withoutUserInfo(raw: string): { url: string; authorization: string | null } {
  const u = new URL(raw);
  if (!u.username && !u.password) return { url: raw, authorization: null };
  const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = '';
  u.password = '';
  return { url: u.toString(), authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** The feeds with a URL configured: the only ones fetched. */
export function enabledFeeds(config: FeedsConfig): FeedKind[] {
  return FEEDS.filter((f) => config[f].url);
}

/**
 * Fetches the configured feeds on their interval (worker role). Each feed is one row of
 * `feed_fetches`, claimed through a LeaseQueue when due, so however many workers run, one
 * fetch of a feed runs at a time, and a worker that dies mid-fetch leaves it to another
 * once its lease lapses. The download goes through the one outbound client (its address
 * policy: a mirror on a private network needs `outbound.allowPrivateCidrs`) and streams
 * straight into the feed store. A failure is recorded on the row and tried again after
 * `feeds.retryMs`; a refused feed is also recorded as a refused load.
 */
export class FeedFetcher {
  readonly queue: LeaseQueue;
  readonly worker: LeaseWorker;
  readonly #enabled: FeedKind[];

  constructor(
    private readonly db: Db,
    private readonly config: FeedsConfig,
    private readonly store: FeedStore,
    private readonly outbound: OutboundHttpClient,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {
    this.#enabled = enabledFeeds(config);
    const enabled = this.#enabled;
    this.queue = new LeaseQueue({ table: 'feed_fetches', idColumn: 'feed', ready: {}, readyWhere: (q) => void q.whereIn('feed', enabled), dueColumn: 'due_at', order: [{ column: 'due_at' }] });
    this.worker = new LeaseWorker({
      name: 'feed-fetch', db, queue: this.queue, logger, tokenTag: 'feed', clock,
      pollIntervalMs: config.pollIntervalMs,
      concurrency: () => 1,
      leaseMs: () => config.leaseMs,
      run: (lease) => this.#run(lease),
    });
  }

  /** Creates the schedule rows of the enabled feeds (due at once when new; an existing row keeps its time). */
  async ensureSchedule(): Promise<void> {
    const now = this.clock();
    for (const feed of this.#enabled) {
      await feedRepository.ensureFetchRow(this.db, feed, now);
    }
  }

  async start(): Promise<void> {
    if (!this.#enabled.length) return;
    await this.ensureSchedule();
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Downloads `feed` from its URL and loads it (the scheduled run, also callable by hand). */
  async fetch(feed: FeedKind, signal?: AbortSignal): Promise<FeedLoadResult> {
    const configured = this.config[feed].url;
    if (!configured) throw new Error(`feeds.${feed}.url is not set`);
    const { url: first, authorization } = withoutUserInfo(configured);
    const origin = new URL(first).origin;
    let url = first;
    for (let hop = 0; ; hop++) {
      // A mirror's user:password goes as Basic authorization, to the mirror's own origin only.
      const headers: Record<string, string> = { accept: '*/*', ...(authorization && new URL(url).origin === origin ? { authorization } : {}) };
      const next: string | FeedLoadResult = await this.outbound.download({ url, timeoutMs: this.config.fetchTimeoutMs, ...(signal ? { signal } : {}), headers }, async (res) => {
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') return new URL(location, url!).toString();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} from ${safeLocation(url!)}`);
        return this.store.load(feed, { kind: 'url', location: safeLocation(url!) }, res.body);
      });
      if (typeof next !== 'string') return next;
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${safeLocation(this.config[feed].url!)}`);
      url = next;
    }
  }

  async #run(lease: Lease): Promise<void> {
    const feed = lease.id as FeedKind;
    const started = this.clock();
    await this.queue.update(this.db, feed, lease.token, { last_attempt_at: started });
    try {
      const result = await this.fetch(feed, lease.signal);
      this.logger.info({ feed, load: result.loadId, rows: result.rows, added: result.added, removed: result.removed, changed: result.changed }, 'feed fetched');
      await this.queue.finish(this.db, feed, lease.token, { due_at: this.clock() + this.config[feed].intervalMs, failures: 0, last_error: null });
    } catch (err) {
      if (lease.reason === 'shutdown') return;
      const message = errorMessage(err).slice(0, 2000);
      this.logger.warn({ feed, err: message }, 'feed fetch failed; will retry');
      await this.queue.finish(this.db, feed, lease.token, {
        due_at: this.clock() + Math.min(this.config.retryMs, this.config[feed].intervalMs),
        failures: (await feedRepository.fetchFailures(this.db, feed)) + 1,
        last_error: message,
      });
    }
  }
}
