import { dialectOf, type Queryable } from '../db/create-db.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { SEVERITY_RANK } from '../domain/severity.ts';
import { findingCounterRepository } from './finding-counter-repository.ts';
import { findingRepository, type FindingRow } from './finding-repository.ts';
import { findingSearchRepository } from './finding-search-repository.ts';
import type { FindingFilters, FindingSort } from './finding-views.ts';

// The (tenant, key, id) index of each sort and of the severity/status filters: a MariaDB walk
// names the one it reads (its planner would start from the word index and read a row per match).
const SORT_INDEX: Record<Exclude<FindingSort['sortBy'], 'epss'>, string> = {
  severity: 'findings_tenant_id_severity_rank_id_index',
  cvss: 'findings_tenant_id_cvss_tenths_id_index',
  discovered_at: 'findings_tenant_id_discovered_at_id_index',
  title: 'findings_tenant_id_title_id_index',
};
const STATUS_INDEX = 'findings_tenant_id_status_severity_rank_id_index';

/**
 * One page of GET /api/findings and its `meta.total`, each read the cheapest way the
 * filters allow: totals from the maintained counters or the search index, a search's page
 * by walking a sort index or by sorting its matches (docs/design/assets-findings.md).
 */
export const findingPageRepository = {
  async list(db: Queryable, tenantId: string, filters: FindingFilters, sort: FindingSort, page: PageRequest): Promise<Page<FindingRow>> {
    const total = await this.count(db, tenantId, filters);
    // A search matching under 1 % of the tenant's findings: sorting its matches beats walking
    // the sort index past a hundred rows for each one; a common word is the other way round.
    // An EPSS sort has no index to walk: it always sorts the matches.
    const fromMatches = sort.sortBy === 'epss' || Boolean(filters.asset_id || filters.scan_id)
      || (Boolean(filters.search) && total * 100 < (await findingCounterRepository.total(db, tenantId)));
    const offset = (page.page - 1) * page.perPage;
    // An EPSS sort computes a score per matching finding: ids first too, so only a page of rows is read whole.
    if (filters.search || sort.sortBy === 'epss') {
      if (total === 0) return { total, rows: [] };
      // The page's ids first, from sort key and id alone (a covering index), then only those
      // rows in full: sorting thousands of whole rows, each with its asset looked up, is what
      // made a common word take seconds. A common word walks the sort index (see whereSearch).
      const matches = findingRepository.query(db, tenantId, filters, fromMatches, fromMatches || sort.sortBy === 'epss' ? undefined : SORT_INDEX[sort.sortBy]).select('findings.id');
      const pageIds = (await findingRepository.ordered(matches, sort, fromMatches && dialectOf(db) === 'sqlite').limit(page.perPage).offset(offset)) as Array<{ id: string }>;
      if (!pageIds.length) return { total, rows: [] };
      const rows = findingRepository.withAsset(db('findings').where('findings.tenant_id', tenantId).whereIn('findings.id', pageIds.map((r) => r.id)));
      return { total, rows: (await findingRepository.ordered(rows, sort, true)) as FindingRow[] };
    }
    const rows = (await findingRepository.listQuery(db, tenantId, filters, sort, fromMatches).limit(page.perPage).offset(offset)) as FindingRow[];
    return { total, rows };
  },

  /**
   * How many findings match: filtered by severity and status alone (or not at all), a sum
   * of the maintained counters (finding_counters, at most 25 rows); by a search alone, a
   * count inside the search index (any search on SQLite, one word or prefix on MariaDB);
   * otherwise a count of the rows.
   */
  async count(db: Queryable, tenantId: string, filters: FindingFilters): Promise<number> {
    const { severity, status, search, ...rest } = filters;
    let searchDrives = true;
    if (Object.values(rest).every((v) => v === undefined)) {
      const ranks = severity?.length ? [...new Set(severity.map((s) => SEVERITY_RANK[s]))] : undefined;
      if (search === undefined) return findingCounterRepository.total(db, tenantId, ranks, status);
      const inIndex = await findingSearchRepository.count(db, tenantId, search);
      if (inIndex !== null && !ranks && status === undefined) return inIndex;
      // A search with severity/status: a driven match costs a row read, some twenty entries
      // (SQLite; more on MariaDB) of the covering severity/status index; test the matches
      // against that index unless they are far fewer than the findings it selects.
      if (inIndex !== null) searchDrives = inIndex * 20 < (await findingCounterRepository.total(db, tenantId, ranks, status));
    }
    const walk = searchDrives ? undefined : status === undefined ? SORT_INDEX.severity : STATUS_INDEX;
    const row = (await findingRepository.query(db, tenantId, filters, searchDrives, walk).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  },
};
