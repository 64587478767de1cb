import type { Db, Queryable } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import type { Outbox, UnitOfWork } from '../events/outbox.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import { newId } from '../ids.ts';
import {
  assetRepository, toAssetDetail, toAssetListItem,
  type AssetDetail, type AssetListItem, type AssetRow, type NewAsset,
} from './asset-repository.ts';
import type { AssetFilters, AssetStatus } from './asset-views.ts';
import { changeClock } from '../db/change-clock.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { toIsoRequired } from '../time.ts';
import type { NetworkLimits } from './asset-names.ts';
import { normaliseMetadata, normaliseTags, prepareAsset, searchTextOf, type AssetInput } from './asset-input.ts';

export type { AssetDetail };

export interface CreatedAsset {
  id: string;
  name: string;
  type: string;
  status: AssetStatus;
  verified: boolean;
  tags: string[];
  created_at: string;
}

export interface AssetChanges {
  tags?: string[];
  metadata?: Record<string, unknown>;
  status?: 'active' | 'inactive';
}

/**
 * Runs in an asset's delete transaction, before the row (and by cascade its findings) goes:
 * the findings' maintained counters subtract the asset's share here. A hook rather than an
 * import, because core/findings depends on core/assets.
 */
export type AssetDeleteHook = (trx: Queryable, tenantId: string, assetId: string) => Promise<void>;

/** Asset registry: create, read, list, update, delete; events asset.created through the outbox. */
export class AssetService {
  readonly #db: Db;
  readonly #outbox: Outbox<EventPayloads>;
  readonly #limits: NetworkLimits;
  readonly #beforeDelete: AssetDeleteHook;

  constructor(db: Db, outbox: Outbox<EventPayloads>, limits: NetworkLimits, beforeDelete: AssetDeleteHook) {
    this.#db = db;
    this.#outbox = outbox;
    this.#limits = limits;
    this.#beforeDelete = beforeDelete;
  }

  /** Validates and normalises one asset without writing it (InputError on bad input). */
  prepare(tenantId: string, input: AssetInput, now = Date.now()): NewAsset {
    return prepareAsset(tenantId, newId('ast', now), input, this.#limits, now);
  }

  async create(tenantId: string, input: AssetInput): Promise<CreatedAsset> {
    const asset = this.prepare(tenantId, input);
    try {
      await this.#outbox.transaction(async (uow) => {
        await this.insertPrepared(uow, [asset]);
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const existing = await assetRepository.existingKeys(this.#db, tenantId, [asset.nameKey]);
      if (!existing.size) throw err;
      throw new ConflictError(`A ${asset.type} asset named "${asset.name}" already exists.`, 'asset_exists');
    }
    return {
      id: asset.id, name: asset.name, type: asset.type, status: 'pending_verification', verified: false, tags: asset.tags,
      created_at: toIsoRequired(asset.now),
    };
  }

  /** Inserts prepared assets in the caller's unit of work, with their asset.created events. */
  async insertPrepared(uow: UnitOfWork<EventPayloads>, assets: NewAsset[]): Promise<void> {
    if (!assets.length) return;
    await assetRepository.insertMany(uow.trx, assets);
    await uow.emitMany(assets.map((a) => ({ tenantId: a.tenantId, kind: 'asset.created' as const, assetId: a.id, data: { asset_id: a.id, name: a.name, type: a.type, tags: a.tags } })));
    await changeClock.markChanged(uow.trx, assets[0]!.tenantId, 'assets');
  }

  async getRow(tenantId: string, id: string): Promise<AssetRow> {
    const row = await assetRepository.findById(this.#db, tenantId, id);
    if (!row) throw new NotFoundError('Asset');
    return row;
  }

  async get(tenantId: string, id: string): Promise<AssetDetail> {
    return toAssetDetail(await this.getRow(tenantId, id));
  }

  /** The detail view, or null when the tenant has no such asset (one read: Last-Modified and body of GET /api/assets/{id}). */
  async find(tenantId: string, id: string): Promise<AssetDetail | null> {
    const row = await assetRepository.findById(this.#db, tenantId, id);
    return row ? toAssetDetail(row) : null;
  }

  /** When the tenant's asset list last changed (change clock), or null if never: the list's Last-Modified. */
  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'assets');
  }

  async list(tenantId: string, filters: AssetFilters, page: PageRequest): Promise<Page<AssetListItem>> {
    const result = await assetRepository.list(this.#db, tenantId, filters, page);
    return { total: result.total, rows: result.rows.map(toAssetListItem) };
  }

  /**
   * PUT: replaces tags and/or metadata; `status` may move an asset to `inactive`, or
   * back to `active` once verified (an unverified asset stays pending_verification).
   */
  async update(tenantId: string, id: string, changes: AssetChanges): Promise<AssetDetail> {
    const tags = changes.tags === undefined ? undefined : normaliseTags(changes.tags);
    const metadata = changes.metadata === undefined ? undefined : normaliseMetadata(changes.metadata);
    await this.#db.transaction(async (trx) => {
      const row = await assetRepository.findById(trx, tenantId, id, true);
      if (!row) throw new NotFoundError('Asset');
      const now = Date.now();
      const update: Record<string, unknown> = { updated_at: now };
      if (tags) update.tags = JSON.stringify(tags);
      if (metadata) {
        update.metadata = JSON.stringify(metadata);
        update.search_text = searchTextOf(row.name, metadata);
      }
      if (changes.status === 'inactive') update.status = 'inactive';
      if (changes.status === 'active') {
        if (!row.verified) throw new ConflictError('Only a verified asset can be made active; verify its ownership first.', 'asset_not_verified');
        update.status = 'active';
      }
      await assetRepository.update(trx, tenantId, id, update, tags);
      await changeClock.markChanged(trx, tenantId, 'assets', now);
    });
    return this.get(tenantId, id);
  }

  /** Removes the asset and, by cascade, its findings (with notes and history), scans and schedules. */
  async delete(tenantId: string, id: string): Promise<void> {
    // The cascade locks finding, scan and counter rows that running scans write too: on MariaDB
    // a lock cycle with one of them is expected now and then, and running the delete again is the remedy.
    await retryOnDeadlock(() => this.#db.transaction(async (trx) => {
      // Locked first, like a finding write, so no finding is added between the count and the delete.
      if (!(await assetRepository.findById(trx, tenantId, id, true))) throw new NotFoundError('Asset');
      await this.#beforeDelete(trx, tenantId, id);
      if (!(await assetRepository.delete(trx, tenantId, id))) throw new NotFoundError('Asset');
      const now = Date.now();
      await changeClock.markChanged(trx, tenantId, 'assets', now);
      for (const collection of ['findings', 'scans', 'schedules'] as const) await changeClock.markChanged(trx, tenantId, collection, now);
    }));
  }
}
