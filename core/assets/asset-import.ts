import { isUniqueViolation } from '../db/db-errors.ts';
import { ConflictError, PayloadTooLargeError, RampartError } from '../errors.ts';
import type { Outbox } from '../events/outbox.ts';
import { assetRepository, type NewAsset } from './asset-repository.ts';
import type { AssetService } from './asset-service.ts';

/** One asset of an import: `row` is its 1-based position among the data rows (a CSV header is not counted). */
export interface ImportRow {
  row: number;
  name: unknown;
  type: unknown;
  tags: unknown;
  /** Set when the row is unusable before validation (wrong cell count, not an object). */
  error?: { code: string; message: string } | undefined;
}

export interface ImportError {
  row: number;
  name: string | null;
  code: string;
  message: string;
}

export interface ImportResult {
  imported: number;
  failed: number;
  errors: ImportError[];
  errors_truncated: boolean;
}

export interface ImportLimits {
  maxRows: number;
  batchSize: number;
  /** How many errors are listed; `failed` always counts them all. */
  maxErrors?: number;
}

/**
 * Imports a stream of rows in ONE transaction, inserting in batches: good rows are
 * imported, bad ones reported. Exceeding the row limit (or any fatal input error,
 * such as malformed CSV) rolls everything back, so a 413/400 never leaves half an
 * import behind. Only one batch of rows is held in memory at a time.
 */
export async function importAssets(service: AssetService, outbox: Outbox, tenantId: string, rows: AsyncIterable<ImportRow>, limits: ImportLimits): Promise<ImportResult> {
  const maxErrors = limits.maxErrors ?? 1000;
  const result: ImportResult = { imported: 0, failed: 0, errors: [], errors_truncated: false };
  const fail = (row: number, name: unknown, code: string, message: string) => {
    result.failed += 1;
    if (result.errors.length < maxErrors) result.errors.push({ row, name: typeof name === 'string' ? name : null, code, message });
    else result.errors_truncated = true;
  };
  try {
    await outbox.transaction(async (uow) => {
      let batch: Array<{ row: number; asset: NewAsset }> = [];
      const seen = new Set<string>();
      const flush = async () => {
        const existing = await assetRepository.existingKeys(uow.trx, tenantId, batch.map((b) => b.asset.nameKey));
        const fresh = batch.filter((b) => {
          if (!existing.has(b.asset.nameKey)) return true;
          fail(b.row, b.asset.name, 'asset_exists', `A ${b.asset.type} asset named "${b.asset.name}" already exists.`);
          return false;
        });
        await service.insertPrepared(uow, fresh.map((b) => b.asset));
        result.imported += fresh.length;
        batch = [];
      };
      let count = 0;
      for await (const r of rows) {
        count += 1;
        if (count > limits.maxRows) throw new PayloadTooLargeError(`An import may hold at most ${limits.maxRows} rows; nothing was imported.`, { max_rows: limits.maxRows });
        if (r.error) {
          fail(r.row, r.name, r.error.code, r.error.message);
          continue;
        }
        let asset: NewAsset;
        try {
          asset = service.prepare(tenantId, { name: r.name, type: r.type, tags: r.tags });
        } catch (err) {
          if (!(err instanceof RampartError) || err.statusCode !== 400) throw err;
          fail(r.row, r.name, err.code, err.message);
          continue;
        }
        // Within one import the key set stays small enough (64 hex chars per row) to catch repeats across batches.
        if (seen.has(asset.nameKey)) {
          fail(r.row, asset.name, 'duplicate_in_import', `"${asset.name}" appears earlier in this import.`);
          continue;
        }
        seen.add(asset.nameKey);
        batch.push({ row: r.row, asset });
        if (batch.length >= limits.batchSize) await flush();
      }
      if (batch.length) await flush();
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError('Another request created one of these assets during the import; nothing was imported. Retry the import.', 'import_conflict');
    throw err;
  }
  result.errors.sort((a, b) => a.row - b.row);
  return result;
}
