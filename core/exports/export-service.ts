import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import { pipeline, Transform, type Readable } from 'node:stream';
import type { ExportsConfig } from '../../config/exports-config.ts';
import type { Db } from '../db/create-db.ts';
import { ConflictError, InputError, NotFoundError, RampartError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { changeClock } from '../db/change-clock.ts';
import { exportRepository } from './export-repository.ts';
import { findingExportRepository } from './finding-export-repository.ts';
import type { ExportFilters, ExportJob } from './export-views.ts';
import { dateTimeInWords, filtersInWords } from './report-words.ts';
import { CONTENT_TYPES, csvStages, evidenceColumnsFor, jsonStages, type ExportFormat } from './export-formats.ts';
import { pdfStage } from './findings-pdf.ts';

export interface ExportRequest {
  tenantId: string;
  requestedBy: string | null;
  format: ExportFormat;
  filters: ExportFilters;
}

/** What an export request turns into: the file itself, or a background job. */
export type ExportStart =
  | { kind: 'file'; stream: Readable; contentType: string; fileName: string; rows: number }
  | { kind: 'job'; job: ExportJob };

export interface ExportFile {
  stream: Readable;
  contentType: string;
  fileName: string;
  sizeBytes: number;
}

const EXTENSION: Record<ExportFormat, string> = { csv: 'csv', json: 'json', pdf: 'pdf' };

/**
 * Gathers the formatter's small pieces (csv-stringify emits one chunk per row) into
 * chunks of about `size` bytes: one socket or file write per chunk instead of per row.
 */
function coalesce(size: number): Transform {
  let parts: Buffer[] = [];
  let length = 0;
  return new Transform({
    transform(chunk: Buffer | string, _enc, done) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      parts.push(buf);
      length += buf.length;
      if (length < size) return done();
      const joined = Buffer.concat(parts, length);
      parts = [];
      length = 0;
      done(null, joined);
    },
    flush(done) {
      done(null, length ? Buffer.concat(parts, length) : undefined);
    },
  });
}

/**
 * Finding exports: small ones stream straight into the response, large ones become
 * background jobs whose file (tenant-scoped, under `exports.directory`) can be
 * downloaded until it expires. Rows always stream from the database through the
 * formatter, so memory stays flat whatever the row count.
 */
export class ExportService {
  readonly directory: string;

  constructor(
    private readonly db: Db,
    private readonly config: ExportsConfig,
    private readonly logger: Logger,
    /** Called when a job is queued, so the worker starts it without waiting for its next poll. */
    public onQueued: () => void = () => {},
  ) {
    this.directory = resolve(config.directory);
  }

  async start(req: ExportRequest, now = Date.now()): Promise<ExportStart> {
    const rows = await findingExportRepository.count(this.db, req.tenantId, req.filters);
    const max = req.format === 'pdf' ? this.config.pdfMaxRows : this.config.maxRows;
    if (rows > max) {
      throw new InputError(`This export would hold ${rows} findings; a ${req.format} export holds at most ${max}. Narrow the filters.`, 'export_too_large', { rows, max_rows: max });
    }
    if (rows <= this.config.syncMaxRows) {
      const stream = await this.render(req.tenantId, req.format, req.filters, now);
      const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
      return { kind: 'file', stream, contentType: CONTENT_TYPES[req.format], fileName: `findings-${stamp}.${EXTENSION[req.format]}`, rows };
    }
    if ((await exportRepository.countPending(this.db, req.tenantId)) >= this.config.maxPendingPerTenant) {
      throw new ConflictError(`At most ${this.config.maxPendingPerTenant} background exports may be queued or running at once; wait for one to finish.`, 'export_limit_reached');
    }
    const id = newId('exp', now);
    await this.db.transaction(async (trx) => {
      await exportRepository.insert(trx, { id, tenantId: req.tenantId, format: req.format, filters: req.filters, totalRows: rows, requestedBy: req.requestedBy, now });
      await changeClock.markChanged(trx, req.tenantId, 'exports', now);
    });
    this.onQueued();
    return { kind: 'job', job: (await exportRepository.findById(this.db, req.tenantId, id))! };
  }

  /** The formatted bytes of an export, as a stream (errors end it with 'error'); `counter.rows` counts rows written. */
  async render(tenantId: string, format: ExportFormat, filters: ExportFilters, now = Date.now(), counter = { rows: 0 }): Promise<Readable> {
    let stages: Transform[];
    if (format === 'pdf') {
      const [summary, figures] = await Promise.all([
        findingExportRepository.summary(this.db, tenantId, filters, now),
        findingExportRepository.management(this.db, tenantId, filters),
      ]);
      stages = [pdfStage(summary, {
        generatedAt: dateTimeInWords(now),
        filters: filtersInWords(filters, figures.assetName),
        management: { figures, scope: filtersInWords(filters, figures.assetName), generatedAt: now },
      })];
    } else if (format === 'csv') {
      stages = csvStages(evidenceColumnsFor(await findingExportRepository.evidenceKeys(this.db, tenantId, filters)));
    } else {
      stages = jsonStages();
    }
    const count = new Transform({
      objectMode: true,
      transform(row, _enc, done) {
        counter.rows += 1;
        done(null, row);
      },
    });
    const out = coalesce(64 * 1024);
    const rows = findingExportRepository.stream(this.db, tenantId, filters);
    pipeline([rows, count, ...stages, out], (err) => {
      if (err && err.name !== 'AbortError' && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        this.logger.error({ err: { message: err.message }, tenant_id: tenantId, format }, 'export stream failed');
      }
    });
    return out;
  }

  async get(tenantId: string, id: string): Promise<ExportJob> {
    const job = await exportRepository.findById(this.db, tenantId, id);
    if (!job) throw new NotFoundError('Export');
    return job;
  }

  /** The finished file of a background export; 409 while it is not ready, 410 once expired. */
  async download(tenantId: string, id: string, now = Date.now()): Promise<ExportFile> {
    const job = await this.get(tenantId, id);
    if (job.status === 'queued' || job.status === 'running') {
      throw new ConflictError('The export is still being prepared; poll its status_url and download once status is completed.', 'export_not_ready', { export_status: job.status });
    }
    if (job.status === 'failed') throw new ConflictError('The export failed; request a new one.', 'export_failed', { export_status: job.status });
    if (job.status === 'expired' || !job.fileName || (job.expiresAt !== null && job.expiresAt <= now)) {
      throw new RampartError(410, 'export_expired', 'The export file has expired and was deleted; request a new export.');
    }
    const path = join(this.directory, job.fileName);
    let sizeBytes: number;
    try {
      sizeBytes = (await stat(path)).size;
    } catch {
      throw new RampartError(410, 'export_expired', 'The export file is no longer available; request a new export.');
    }
    return { stream: createReadStream(path), contentType: CONTENT_TYPES[job.format], fileName: `findings-${job.id}.${EXTENSION[job.format]}`, sizeBytes };
  }

  /**
   * Writes a claimed job's file (temp name, then rename) and records the outcome
   * (completed or failed). Throws only when `signal` aborted it (shutdown, lost lease).
   */
  async run(job: ExportJob, workerId: string, signal: AbortSignal): Promise<void> {
    const relative = join(job.tenantId, `${job.id}.${EXTENSION[job.format]}`);
    const target = join(this.directory, relative);
    const partial = `${target}.part`;
    try {
      await mkdir(join(this.directory, job.tenantId), { recursive: true });
      const counter = { rows: 0 };
      const source = await this.render(job.tenantId, job.format, job.filters, Date.now(), counter);
      await pipelineAsync(source, createWriteStream(partial), { signal });
      await rename(partial, target);
      const size = (await stat(target)).size;
      const now = Date.now();
      const ok = await this.db.transaction(async (trx) => {
        const done = await exportRepository.complete(trx, job.id, workerId, { rowCount: counter.rows, sizeBytes: size, fileName: relative, now, expiresAt: now + this.config.ttlSeconds * 1000 });
        if (done) await changeClock.markChanged(trx, job.tenantId, 'exports', now);
        return done;
      });
      if (!ok) await rm(target, { force: true });
    } catch (err) {
      await rm(partial, { force: true }).catch(() => {});
      if (signal.aborted) throw err;
      this.logger.error({ err: { message: (err as Error).message }, export_id: job.id }, 'background export failed');
      await exportRepository.fail(this.db, job.id, workerId, 'The export could not be written.', Date.now());
      await changeClock.markChanged(this.db, job.tenantId, 'exports');
    }
  }

  /** Deletes files of expired exports and marks them expired. */
  async sweepExpired(now = Date.now()): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await exportRepository.listExpired(this.db, now, 100);
      for (const job of batch) {
        if (job.fileName) await rm(join(this.directory, job.fileName), { force: true });
        await exportRepository.markExpired(this.db, job.id, now);
        await changeClock.markChanged(this.db, job.tenantId, 'exports', now);
        removed += 1;
      }
      if (batch.length < 100) return removed;
    }
  }
}
