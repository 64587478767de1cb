import type { Queryable } from '../db/create-db.ts';
import { fromJson } from '../db/json.ts';
import { epssFor, feedsInForce, kevFor } from '../feeds/feed-lookup.ts';
import { enrichmentOf } from '../findings/finding-enrichment.ts';
import { toIsoRequired } from '../time.ts';
import { inventoryRepository } from './inventory-repository.ts';
import { tryParsePurl } from './purl.ts';

/** What the link needs of a component. */
export interface LinkTarget {
  id: string;
  asset_id: string;
  name: string;
  version: string | null;
  purl_base: string | null;
}

/** A finding that concerns a component, with the exploit data enrichment will add. */
export interface LinkedFinding {
  id: string;
  title: string;
  severity: string;
  cvss: number;
  status: string;
  cve_ids: string[];
  /** One of its CVEs is on CISA's Known Exploited Vulnerabilities list; null while no KEV catalog is loaded (docs/feeds.md). */
  kev: boolean | null;
  /** The highest FIRST EPSS probability (0-1) of its CVEs; null without a score (or no EPSS feed loaded). */
  epss: number | null;
  updated_at: string;
}

interface FindingRow {
  id: string;
  asset_id: string;
  title: string;
  severity: string;
  cvss_tenths: number;
  status: string;
  evidence: string;
  tags: string;
  updated_at: number;
}

const CVE = /CVE-\d{4}-\d{4,}/gi;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

function cvesOf(row: FindingRow, evidence: Record<string, unknown>): string[] {
  const listed = Array.isArray(evidence.cve_ids) ? evidence.cve_ids.filter((v): v is string => typeof v === 'string') : [];
  const text = [...listed, ...fromJson<string[]>(row.tags, []), row.title].join(' ');
  return [...new Set([...text.matchAll(CVE)].map((m) => m[0].toUpperCase()))];
}

/**
 * The link rule (docs/inventory.md#findings-and-components): a finding concerns a
 * component when it is on the same asset, names a CVE (evidence.cve_ids, a tag or its
 * title), and its evidence names the component: a package URL (`purl`, `package_url` or
 * `component.purl`) of the same package, and of the same version when it has one; else a
 * package name (`package`, `package_name`, `component` or `component.name`, exact) and,
 * when given, a version (`version`, `installed_version`, `component.version`) equal to
 * the component's. A CVE with no such evidence links to nothing: a CVE alone does not say
 * which package it is in.
 */
export function concerns(target: LinkTarget, evidence: Record<string, unknown>): boolean {
  const component = evidence.component && typeof evidence.component === 'object' ? (evidence.component as Record<string, unknown>) : {};
  const purl = tryParsePurl(str(evidence.purl) ?? str(evidence.package_url) ?? str(component.purl));
  if (purl) return purl.base === target.purl_base && (purl.version === null || purl.version === target.version);
  const name = str(evidence.package) ?? str(evidence.package_name) ?? str(evidence.component) ?? str(component.name);
  if (!name || name !== target.name) return false;
  const version = str(evidence.version) ?? str(evidence.installed_version) ?? str(component.version);
  return version === null || version === target.version;
}

/**
 * The findings that concern each component (read side: nothing is stored, so a finding
 * imported before or after the SBOM links the same way). One query per asset, narrowed
 * in SQL by the package URLs and names as they appear in the evidence JSON, then decided
 * by `concerns`.
 */
export async function linkFindings(db: Queryable, tenantId: string, targets: LinkTarget[]): Promise<Map<string, LinkedFinding[]>> {
  const out = new Map<string, LinkedFinding[]>(targets.map((t) => [t.id, []]));
  const byAsset = new Map<string, LinkTarget[]>();
  for (const t of targets) byAsset.set(t.asset_id, [...(byAsset.get(t.asset_id) ?? []), t]);
  for (const [assetId, list] of byAsset) {
    const patterns = [...new Set(list.flatMap((t) => [t.purl_base, JSON.stringify(t.name)]).filter((p): p is string => Boolean(p)))];
    const rows = (await inventoryRepository.candidateFindings(db, tenantId, assetId, patterns, 1000)) as FindingRow[];
    for (const row of rows) {
      const evidence = fromJson<Record<string, unknown>>(row.evidence, {});
      const cves = cvesOf(row, evidence);
      if (cves.length === 0) continue;
      for (const t of list) {
        if (!concerns(t, evidence)) continue;
        out.get(t.id)!.push({ id: row.id, title: row.title, severity: row.severity, cvss: Number(row.cvss_tenths) / 10, status: row.status, cve_ids: cves, kev: null, epss: null, updated_at: toIsoRequired(Number(row.updated_at)) });
      }
    }
  }
  return enrich(db, out);
}

/** KEV and EPSS of the linked findings' CVEs, from the feeds in force (read-time, as on findings). */
async function enrich(db: Queryable, linked: Map<string, LinkedFinding[]>): Promise<Map<string, LinkedFinding[]>> {
  const all = [...linked.values()].flat();
  const cves = [...new Set(all.flatMap((f) => f.cve_ids))];
  if (cves.length === 0) return linked;
  const [loaded, kev, epss] = await Promise.all([feedsInForce(db), kevFor(db, cves), epssFor(db, cves)]);
  for (const f of all) {
    const facts = enrichmentOf(f.cve_ids, kev, epss);
    f.kev = loaded.has('kev') ? facts.kev !== null : null;
    f.epss = facts.epss?.score ?? null;
  }
  return linked;
}
