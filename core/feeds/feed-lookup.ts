import type { Queryable } from '../db/create-db.ts';
import { feedRepository as repo, type TableSource } from './feed-repository.ts';
import type { FeedKind } from './feed-types.ts';

/** What the KEV catalog in force says about a CVE (the fields a finding carries). */
export interface KevFacts {
  cve: string;
  dateAdded: string;
  dueDate: string;
  knownRansomware: boolean;
  vendorProject: string;
  product: string;
  vulnerabilityName: string;
  requiredAction: string;
  cwes: string[];
  /** The catalog's version (`catalogVersion`) and release date (ISO 8601). */
  catalogVersion: string;
  feedDate: string;
}

/** The EPSS score in force for a CVE. */
export interface EpssFacts {
  cve: string;
  score: number;
  percentile: number;
  /** The feed's `score_date` (ISO 8601) and model. */
  feedDate: string;
  modelVersion: string;
}

/** One CVE a load added, removed or changed against the load before it. */
export interface FeedChange {
  cve: string;
  kind: 'added' | 'removed' | 'changed';
}

const IN_LIST = 500;

function chunks(cves: readonly string[]): string[][] {
  const unique = [...new Set(cves)];
  const out: string[][] = [];
  for (let i = 0; i < unique.length; i += IN_LIST) out.push(unique.slice(i, i + IN_LIST));
  return out;
}

/**
 * The KEV facts of those of `cves` that are in the catalog in force; a CVE not in the map
 * is not in the catalog (or no catalog was loaded: `GET /api/feeds` tells). For the
 * findings feature's enrichment: any number of CVEs, read 500 at a time.
 */
export async function kevFor(db: Queryable, cves: readonly string[]): Promise<Map<string, KevFacts>> {
  const out = new Map<string, KevFacts>();
  for (const part of chunks(cves)) {
    const rows = (await repo.inForceRows(db, 'kev', part)) as Array<Record<string, string>>;
    for (const r of rows) {
      out.set(r.cve_id!, {
        cve: r.cve_id!, dateAdded: r.date_added!, dueDate: r.due_date!, knownRansomware: r.known_ransomware === 'Known',
        vendorProject: r.vendor_project!, product: r.product!,
        vulnerabilityName: r.vulnerability_name!, requiredAction: r.required_action!, cwes: JSON.parse(r.cwes!) as string[],
        catalogVersion: r.feed_version!, feedDate: r.feed_date!,
      });
    }
  }
  return out;
}

/** The EPSS scores in force of those of `cves` that have one. */
export async function epssFor(db: Queryable, cves: readonly string[]): Promise<Map<string, EpssFacts>> {
  const out = new Map<string, EpssFacts>();
  for (const part of chunks(cves)) {
    const rows = await repo.inForceRows(db, 'epss', part);
    for (const r of rows) {
      out.set(String(r.cve_id), { cve: String(r.cve_id), score: Number(r.epss), percentile: Number(r.percentile), feedDate: String(r.feed_date), modelVersion: String(r.feed_version) });
    }
  }
  return out;
}

/**
 * The CVEs a load added, removed or changed (against the load in force before it), in CVE
 * order, a page at a time: pass the last CVE of a page as `after` for the next. What the
 * findings feature re-enriches after a load, instead of every finding. Kept for the newest
 * `feeds.keepChangeSets` loads of each feed.
 */
export async function changedCves(db: Queryable, loadId: string, page: { after?: string; limit?: number } = {}): Promise<FeedChange[]> {
  const rows = await repo.changes(db, loadId, page.after, page.limit ?? 1000);
  return rows.map((r) => ({ cve: r.cve_id, kind: r.kind }));
}

/**
 * SQL pieces for the findings list's KEV/EPSS filters and sort, so the findings feature
 * joins the feeds in force without naming their tables: `cves` selects the CVE ids of the
 * KEV catalog in force (or of EPSS scores of at least `minScore`); `highestEpss` is a
 * scalar subquery, the highest score in force among the CVEs a subquery selects.
 */
export const feedJoins = {
  kevCves: (db: TableSource) => repo.inForceCves(db, 'kev'),
  epssCves: (db: TableSource, minScore: number) => repo.inForceCves(db, 'epss', minScore),
  highestEpss: (db: TableSource, cves: Parameters<typeof repo.highestEpss>[1]) => repo.highestEpss(db, cves),
};

/** The feeds that have a load in force: without one, "not in the catalog" cannot be said. */
export async function feedsInForce(db: Queryable): Promise<Set<FeedKind>> {
  return new Set((await repo.currentLoads(db)).map((l) => l.feed));
}

/**
 * When a feed last came into force (epoch ms; 0 if none ever did): what enriches a finding
 * changes then, so its Last-Modified is at least this.
 */
export function feedsChangedAt(db: Queryable): Promise<number> {
  return repo.currentChangedAt(db);
}
