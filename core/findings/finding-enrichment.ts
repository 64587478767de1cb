import type { Queryable } from '../db/create-db.ts';
import { epssFor, kevFor, type EpssFacts, type KevFacts } from '../feeds/feed-lookup.ts';
import { findingCveRepository } from './finding-cve-repository.ts';

/** The KEV catalog's word on a finding: the entry of its CVE with the earliest due date. */
export interface FindingKev {
  cve: string;
  in_catalog: true;
  date_added: string;
  due_date: string;
  known_ransomware: boolean;
  vendor_project: string;
  product: string;
}

/** The finding's highest EPSS score in force, with that CVE's percentile. */
export interface FindingEpss {
  cve: string;
  score: number;
  percentile: number;
  feed_date: string;
}

export interface FindingEnrichment {
  kev: FindingKev | null;
  epss: FindingEpss | null;
}

function earliestDue(a: KevFacts, b: KevFacts): KevFacts {
  return (b.dueDate < a.dueDate || (b.dueDate === a.dueDate && b.cve < a.cve)) ? b : a;
}

/**
 * Adds `kev` and `epss` to findings, read now from the feeds in force (docs/feeds.md, "On
 * findings"): one query for the findings' CVEs and one per feed, whatever the page size.
 * Nothing is stored on the finding, so a feed load changes what every finding naming one of
 * its CVEs shows, and no other.
 */
export async function withEnrichment<T extends { id: string }>(db: Queryable, tenantId: string, findings: T[]): Promise<Array<T & FindingEnrichment>> {
  const cvesOf = findings.length ? await findingCveRepository.cvesOf(db, tenantId, findings.map((f) => f.id)) : new Map<string, string[]>();
  const all = [...new Set([...cvesOf.values()].flat())];
  const [kev, epss] = all.length ? await Promise.all([kevFor(db, all), epssFor(db, all)]) : [new Map(), new Map()];
  return findings.map((f) => ({ ...f, ...enrichmentOf(cvesOf.get(f.id) ?? [], kev, epss) }));
}

/** What the feeds say of one finding's CVEs: the KEV entry due first, the highest EPSS score. */
export function enrichmentOf(cves: readonly string[], kev: ReadonlyMap<string, KevFacts>, epss: ReadonlyMap<string, EpssFacts>): FindingEnrichment {
  const inKev = cves.map((c) => kev.get(c)).filter((k): k is KevFacts => k !== undefined);
  const top = inKev.length ? inKev.reduce(earliestDue) : null;
  let best: FindingEpss | null = null;
  for (const c of cves) {
    const e = epss.get(c);
    if (e && (!best || e.score > best.score)) best = { cve: c, score: e.score, percentile: e.percentile, feed_date: e.feedDate };
  }
  return {
    kev: top && { cve: top.cve, in_catalog: true as const, date_added: top.dateAdded, due_date: top.dueDate, known_ransomware: top.knownRansomware, vendor_project: top.vendorProject.trim(), product: top.product.trim() },
    epss: best,
  };
}
