import type { FeedsConfig } from '../../config/feeds-config.ts';
import type { Db } from '../db/create-db.ts';
import type { Logger } from '../logger.ts';
import type { OutboundHttpClient } from '../outbound/http-client.ts';
import type { BackgroundService } from '../work/background-registry.ts';
import { FeedFetcher } from './feed-fetcher.ts';
import { feedStatus, type FeedStatusView } from './feed-status.ts';
import { FeedStore } from './feed-store.ts';

/**
 * The feeds of this installation: the store every load goes through, the scheduled fetch
 * (worker role; idle unless `feeds.kev.url` or `feeds.epss.url` is set) and the status
 * read of `GET /api/feeds`. Feeds are global: one KEV catalog and one EPSS score set serve
 * every tenant.
 */
export class FeedsService {
  readonly store: FeedStore;
  readonly fetcher: FeedFetcher;

  constructor(
    private readonly db: Db,
    private readonly config: FeedsConfig,
    outbound: OutboundHttpClient,
    logger: Logger,
  ) {
    this.store = new FeedStore(db, { maxBytes: config.maxBytes, keepChangeSets: config.keepChangeSets });
    this.fetcher = new FeedFetcher(db, config, this.store, outbound, logger);
  }

  /** The background entry: the scheduled fetch. */
  background(): BackgroundService {
    return { name: 'feed-fetch', roles: ['worker'], start: () => this.fetcher.start(), stop: () => this.fetcher.stop() };
  }

  /**
   * Every feed's state. `platformAdmin` also sees where loads came from (a server path, a
   * mirror's address) and fetch errors; tenants see dates, versions, counts and hashes.
   */
  status(o: { platformAdmin: boolean; recent: number }): Promise<FeedStatusView[]> {
    return feedStatus(this.db, { recent: o.recent, withLocation: o.platformAdmin, schedules: { kev: this.config.kev, epss: this.config.epss } });
  }
}
