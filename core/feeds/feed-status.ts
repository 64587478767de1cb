import type { Db } from '../db/create-db.ts';
import { toIso } from '../time.ts';
import { feedRepository as repo, type FeedLoadRow } from './feed-repository.ts';
import { FEEDS, type FeedKind } from './feed-types.ts';

/** One recorded load as the API and the CLI show it. */
export interface FeedLoadView {
  id: string;
  status: FeedLoadRow['status'];
  source: { kind: 'file' | 'url'; location: string | null };
  feed_date: string | null;
  feed_version: string | null;
  rows: number;
  added: number;
  removed: number;
  changed: number;
  sha256: string | null;
  bytes: number;
  error: string | null;
  started_at: string;
  loaded_at: string | null;
}

/** A feed's state: the load in force, the latest loads (refused ones included) and its scheduled fetch. */
export interface FeedStatusView {
  feed: FeedKind;
  current: FeedLoadView | null;
  recent: FeedLoadView[];
  schedule: { url: string | null; interval_ms: number; next_fetch_at: string | null; failures: number; last_error: string | null; last_attempt_at: string | null } | null;
}

export interface FeedScheduleSettings {
  url: string | null;
  intervalMs: number;
}

/** A URL without user info, query or fragment: what may be recorded and shown of a (mirror) address. */
export function safeLocation(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The view of a load. `withLocation` false hides where it came from (a server path, a
 * mirror's address): tenant tokens see feed dates and counts, the platform admin also sees
 * the source.
 */
export function loadView(row: FeedLoadRow, withLocation: boolean): FeedLoadView {
  return {
    id: row.id,
    status: row.status,
    source: { kind: row.source_kind, location: withLocation ? row.source : null },
    feed_date: row.feed_date,
    feed_version: row.feed_version,
    rows: Number(row.row_count),
    added: Number(row.added),
    removed: Number(row.removed),
    changed: Number(row.changed),
    sha256: row.sha256,
    bytes: Number(row.bytes),
    error: row.error,
    started_at: toIso(Number(row.started_at))!,
    loaded_at: row.loaded_at === null ? null : toIso(Number(row.loaded_at)),
  };
}

/** Every feed's state, with its `recent` latest loads. */
export async function feedStatus(db: Db, o: { recent: number; withLocation: boolean; schedules?: Record<FeedKind, FeedScheduleSettings> }): Promise<FeedStatusView[]> {
  const current = new Map((await repo.currentLoads(db)).map((r) => [r.feed, r]));
  const fetches = new Map((await repo.fetchRows(db)).map((r) => [String(r.feed), r]));
  const out: FeedStatusView[] = [];
  for (const feed of FEEDS) {
    const row = current.get(feed);
    const settings = o.schedules?.[feed];
    const fetch = fetches.get(feed);
    out.push({
      feed,
      current: row ? loadView(row, o.withLocation) : null,
      recent: (await repo.recentLoads(db, feed, o.recent)).map((r) => loadView(r, o.withLocation)),
      schedule: settings ? {
        url: settings.url && o.withLocation ? safeLocation(settings.url) : null,
        interval_ms: settings.intervalMs,
        next_fetch_at: settings.url && fetch ? toIso(Number(fetch.due_at)) : null,
        failures: Number(fetch?.failures ?? 0),
        last_error: o.withLocation ? ((fetch?.last_error as string | null | undefined) ?? null) : null,
        last_attempt_at: fetch?.last_attempt_at == null ? null : toIso(Number(fetch.last_attempt_at)),
      } : null,
    });
  }
  return out;
}
