import type { Readable } from 'node:stream';
import type { ImportsConfig } from '../../config/imports-config.ts';
import type { Db } from '../db/create-db.ts';
import type { PageRequest, Page } from '../db/paginate.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { ImportFileError } from '../imports/import-file-error.ts';
import { spoolUpload } from '../imports/import-spool.ts';
import type { Logger } from '../logger.ts';
import { linkFindings, type LinkedFinding } from './component-findings.ts';
import { diffInventories, packageKey, type ChangeKind } from './inventory-diff.ts';
import { inventoryRepository as repo, type ComponentFilters, type ComponentRow, type SbomRow } from './inventory-repository.ts';
import { parsePurl } from './purl.ts';
import type { ParsedSbom } from './sbom-model.ts';
import { readSbom } from './sbom-reader.ts';
import { componentView, sbomView, type ComponentView, type SbomView } from './inventory-views.ts';

export interface UploadResult {
  sbom: SbomView;
  changes: Record<ChangeKind, number>;
}

/**
 * The software inventory (issue 31 §2): SBOM uploads become an asset's components, each
 * upload replacing the last with its changes kept; "where do we run X" across assets;
 * and the findings that concern a component (component-findings.ts).
 *
 * An upload is spooled to a private file (the import limits) and read whole before
 * anything is written: a malformed or truncated document changes nothing. Its rows are
 * then written in batches under a new upload id that readers do not see, and one short
 * transaction makes it the asset's inventory (SQLite has one writer; a 50k-component
 * SBOM in one transaction would hold it for seconds).
 */
export class InventoryService {
  readonly #db: Db;
  readonly #config: ImportsConfig;
  readonly #logger: Logger;

  constructor(db: Db, config: ImportsConfig, logger: Logger) {
    this.#db = db;
    this.#config = config;
    this.#logger = logger;
  }

  async #asset(tenantId: string, assetId: string): Promise<{ id: string; name: string }> {
    const asset = await repo.findAsset(this.#db, tenantId, assetId);
    if (!asset) throw new NotFoundError('Asset');
    return asset;
  }

  async upload(tenantId: string, assetId: string, actor: string, body: Readable): Promise<UploadResult> {
    const started = Date.now();
    await this.#asset(tenantId, assetId);
    const spool = await spoolUpload(body, { dir: this.#config.spoolDir, maxBytes: this.#config.maxBytes });
    let parsed: ParsedSbom;
    try {
      parsed = await readSbom(spool.text, { maxItemChars: this.#config.maxResultBytes, maxSkeletonChars: this.#config.maxDocumentBytes, maxComponents: this.#config.maxResults });
    } catch (err) {
      if (!(err instanceof ImportFileError)) throw err;
      const where = err.where ?? '$';
      throw new ValidationError(`The SBOM is not valid at ${where}: ${err.message}. Nothing was recorded.`, [{ field: where, message: err.message }], 'invalid_sbom');
    } finally {
      await spool.dispose();
    }
    const now = Date.now();
    await repo.removeStale(this.#db, assetId, now);
    const previous = await repo.currentSbomId(this.#db, assetId);
    const sbomId = newId('sbm', now);
    const rows = parsed.components.map((c, i) => ({
      id: newId('cmp', now),
      tenant_id: tenantId,
      asset_id: assetId,
      sbom_id: sbomId,
      name: c.name,
      name_lower: c.name.toLowerCase(),
      group_name: c.group,
      version: c.version,
      purl: c.purl,
      purl_base: c.purlBase,
      type: c.type,
      licenses: JSON.stringify(c.licenses),
      direct: parsed.direct.has(i),
    }));
    const before = previous ? await repo.keysOf(this.#db, previous) : [];
    const changes = diffInventories(
      before.map((b) => ({ key: packageKey({ purlBase: b.purl_base, group: b.group_name, name: b.name }), name: b.name, purlBase: b.purl_base, version: b.version })),
      parsed.components.map((c) => ({ key: packageKey(c), name: c.name, purlBase: c.purlBase, version: c.version })),
    );
    const summary: Record<ChangeKind, number> = { added: 0, removed: 0, upgraded: 0, downgraded: 0, changed: 0 };
    for (const c of changes) summary[c.change] += 1;
    const record: SbomRow = {
      id: sbomId, tenant_id: tenantId, asset_id: assetId, format: parsed.format, spec_version: parsed.specVersion, status: 'writing',
      subject_name: parsed.subject?.name ?? null, subject_version: parsed.subject?.version ?? null, tool: parsed.tool,
      component_count: rows.length, dependency_count: parsed.edges.length, summary: repo.summaryJson(summary), uploaded_by: actor, created_at: now,
    };
    await repo.insertSbom(this.#db, record);
    try {
      await repo.insertMany(this.#db, 'sbom_components', rows);
      await repo.insertMany(this.#db, 'sbom_dependencies', parsed.edges.map((e) => ({ sbom_id: sbomId, asset_id: assetId, parent_id: rows[e.parent]!.id, child_id: rows[e.child]!.id })));
      await repo.insertMany(this.#db, 'sbom_changes', repo.changeRows(tenantId, assetId, sbomId, changes, now));
      const won = await this.#db.transaction((trx) => repo.makeCurrent(trx, { tenantId, assetId, expected: previous, sbomId, now }));
      if (!won) throw new ConflictError('Another SBOM upload for this asset finished while this one was being written; this one was not recorded. Send it again.', 'sbom_upload_conflict');
    } catch (err) {
      await repo.removeRows(this.#db, sbomId, true).catch((e: Error) => this.#logger.warn({ err: e.message, sbom_id: sbomId }, 'could not remove an unfinished SBOM upload'));
      throw err;
    }
    if (previous) await repo.removeRows(this.#db, previous);
    this.#logger.info({ tenant_id: tenantId, asset_id: assetId, sbom_id: sbomId, format: parsed.format, components: rows.length, edges: parsed.edges.length, ms: Date.now() - started }, 'SBOM recorded');
    return { sbom: sbomView({ ...record, status: 'current' }), changes: summary };
  }

  async components(tenantId: string, assetId: string, filters: ComponentFilters, page: PageRequest): Promise<Page<ComponentView>> {
    await this.#asset(tenantId, assetId);
    const result = await repo.listComponents(this.#db, tenantId, assetId, filters, page);
    return { total: result.total, rows: await this.#withFindings(tenantId, result.rows) };
  }

  /** "Where do we run this package": by package URL (version optional), exact name or a name substring; none: every component of the tenant. */
  async whereRunning(tenantId: string, query: { purl?: string; name?: string; search?: string }, page: PageRequest): Promise<Page<ComponentView & { asset_name: string }>> {
    const filters: ComponentFilters = {};
    if (query.purl) {
      try {
        const purl = parsePurl(query.purl);
        filters.purlBase = purl.base;
        filters.version = purl.version;
      } catch (err) {
        throw new ValidationError(`purl is not a package URL: ${(err as Error).message}.`, [{ field: 'purl', message: (err as Error).message }]);
      }
    } else if (query.name) filters.name = query.name;
    if (query.search) filters.search = query.search;
    const result = await repo.whereRunning(this.#db, tenantId, filters, page);
    const views = await this.#withFindings(tenantId, result.rows);
    return { total: result.total, rows: views.map((v, i) => ({ ...v, asset_name: result.rows[i]!.asset_name })) };
  }

  async component(tenantId: string, id: string): Promise<ComponentView & { asset_name: string; findings: LinkedFinding[]; depends_on: ComponentView[]; depended_on_by: ComponentView[] }> {
    const row = await repo.findComponent(this.#db, tenantId, id);
    if (!row) throw new NotFoundError('Component');
    const [findings, neighbours] = await Promise.all([linkFindings(this.#db, tenantId, [row]), repo.neighbours(this.#db, row, 500)]);
    const linked = findings.get(row.id)!;
    return {
      ...componentView(row, linked.length),
      asset_name: row.asset_name,
      findings: linked,
      depends_on: neighbours.dependsOn.map((c) => componentView(c, null)),
      depended_on_by: neighbours.dependedOnBy.map((c) => componentView(c, null)),
    };
  }

  async sboms(tenantId: string, assetId: string, page: PageRequest): Promise<Page<SbomView>> {
    await this.#asset(tenantId, assetId);
    const result = await repo.listSboms(this.#db, tenantId, assetId, page);
    return { total: result.total, rows: result.rows.map(sbomView) };
  }

  async changes(tenantId: string, assetId: string, sbomId: string | null, page: PageRequest) {
    await this.#asset(tenantId, assetId);
    return repo.listChanges(this.#db, tenantId, assetId, sbomId, page);
  }

  async #withFindings<R extends ComponentRow>(tenantId: string, rows: R[]): Promise<ComponentView[]> {
    const linked = await linkFindings(this.#db, tenantId, rows);
    return rows.map((r) => componentView(r, linked.get(r.id)!.length));
  }
}
