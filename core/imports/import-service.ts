import type { Readable } from 'node:stream';
import type { ImportsConfig } from '../../config/imports-config.ts';
import type { Db } from '../db/create-db.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import { InputError, PayloadTooLargeError, ValidationError } from '../errors.ts';
import type { Outbox } from '../events/outbox.ts';
import type { FindingService } from '../findings/finding-service.ts';
import type { Logger } from '../logger.ts';
import { headOf, sniffFormat } from './format-sniff.ts';
import { ImportFileError } from './import-file-error.ts';
import { ingestBatch, type Mapped } from './import-ingest.ts';
import { IMPORT_FORMATS, isSkipped, type ImportFormat, type ReaderLimits, type ReaderOutcome, type ReadResult, type ResultReader, type TextSource } from './import-result.ts';
import { spoolUpload } from './import-spool.ts';
import { resolveTargets, targetsKey, type SeenTargets, type TargetMapping } from './import-targets.ts';
import { readBandit } from './bandit-reader.ts';
import { readGitleaks } from './gitleaks-reader.ts';
import { readNmap } from './nmap-reader.ts';
import { readNuclei } from './nuclei-reader.ts';
import { readSarif } from './sarif-reader.ts';
import { readZap } from './zap-reader.ts';

const READERS: Record<ImportFormat, ResultReader> = { sarif: readSarif, nuclei: readNuclei, zap: readZap, nmap: readNmap, bandit: readBandit, gitleaks: readGitleaks };
const LABEL: Record<ImportFormat, string> = { sarif: 'SARIF file', nuclei: 'nuclei JSONL file', zap: 'ZAP JSON report', nmap: 'nmap XML report', bandit: 'bandit JSON report', gitleaks: 'gitleaks JSON report' };

export interface ImportRequest {
  tenantId: string;
  /** User id, or token id for a token without a user. */
  actor: string;
  /** The tool that wrote the file; null: told from the file itself (format-sniff.ts). */
  format: ImportFormat | null;
  body: Readable;
  mapping: TargetMapping;
  scanId: string | null;
}

export interface ImportSummary {
  format: ImportFormat;
  /** Whether `format` was told from the file because the caller gave none. */
  format_detected: boolean;
  /** Results in the file, skipped ones included. */
  results: number;
  created: number;
  seen_again: number;
  reopened: number;
  duplicates: number;
  skipped: number;
  /** Why results were skipped (`kind pass`, `baselineState absent`), with counts. */
  skipped_reasons: Record<string, number>;
  assets: Array<{ id: string; name: string; results: number }>;
}

interface Plan {
  outcome: ReaderOutcome;
  results: number;
  skipped: Record<string, number>;
  targets: Map<string, SeenTargets & { results: number }>;
}

/**
 * POST /api/findings/import: another tool's result file becomes findings. The upload is
 * spooled to a private temporary file; the whole file is read and validated, and every
 * result's asset decided, before anything is written (a malformed file, a result without
 * an asset or a wrong scan_id change nothing); then it is read again and written in
 * batches, each batch one transaction through the scan engine's dedup rules
 * (import-ingest.ts). A re-import finds every dedup key and creates nothing.
 */
export class ImportService {
  readonly #db: Db;
  readonly #outbox: Outbox<EventPayloads>;
  readonly #findings: FindingService;
  readonly #config: ImportsConfig;
  readonly #logger: Logger;

  constructor(db: Db, outbox: Outbox<EventPayloads>, findings: FindingService, config: ImportsConfig, logger: Logger) {
    this.#db = db;
    this.#outbox = outbox;
    this.#findings = findings;
    this.#config = config;
    this.#logger = logger;
  }

  get maxBytes(): number {
    return this.#config.maxBytes;
  }

  async importFile(request: ImportRequest): Promise<ImportSummary> {
    const started = Date.now();
    const spool = await spoolUpload(request.body, { dir: this.#config.spoolDir, maxBytes: this.#config.maxBytes });
    try {
      const looksLike = sniffFormat(await headOf(spool.text));
      if (!request.format && !looksLike) {
        throw new InputError(`Rampart cannot tell which tool wrote this file: send it with format=${IMPORT_FORMATS.join('|')}. Nothing was imported.`, 'import_format_unknown');
      }
      if (request.format && looksLike && looksLike !== request.format) {
        throw new InputError(`This looks like a ${LABEL[looksLike]}, not a ${LABEL[request.format]}: send it with format=${looksLike}. Nothing was imported.`, 'import_format_mismatch', { detected_format: looksLike });
      }
      const format = request.format ?? looksLike!;
      const reader = READERS[format];
      // With one asset_id for everything, targets decide nothing: they are not collected, so
      // a file of 100k distinct URLs is planned in constant memory.
      const single = request.mapping.assetId && !request.mapping.byName && Object.keys(request.mapping.map).length === 0;
      let plan = await this.#plan(format, reader, spool.text, undefined, looksLike, Boolean(single));
      if (!plan.outcome.complete) plan = await this.#plan(format, reader, spool.text, plan.outcome.context, looksLike, Boolean(single));
      const { assetOf, assets } = await resolveTargets(this.#db, request.tenantId, request.mapping, plan.targets.values(), request.scanId);
      const summary = await this.#write({ ...request, format }, reader, spool.text, plan, assetOf, Boolean(single));
      summary.format_detected = !request.format;
      const perAsset = new Map<string, number>();
      for (const [key, seen] of plan.targets) perAsset.set(assetOf.get(key)!, (perAsset.get(assetOf.get(key)!) ?? 0) + seen.results);
      summary.assets = [...perAsset].map(([id, results]) => ({ id, name: assets.get(id)?.name ?? id, results }));
      this.#logger.info({ tenant_id: request.tenantId, format, format_detected: !request.format, bytes: spool.bytes, results: summary.results, created: summary.created, seen_again: summary.seen_again, reopened: summary.reopened, ms: Date.now() - started }, 'findings imported');
      return summary;
    } finally {
      await spool.dispose();
    }
  }

  get #limits(): ReaderLimits {
    return { maxItemChars: this.#config.maxResultBytes, maxSkeletonChars: this.#config.maxDocumentBytes };
  }

  /** Reads the whole file once: validates it, counts results and collects the distinct targets. */
  async #plan(format: ImportFormat, reader: ResultReader, text: TextSource, context: unknown, looksLike: ImportFormat | null, single: boolean): Promise<Plan> {
    const plan: Plan = { outcome: { context: null, complete: true }, results: 0, skipped: {}, targets: new Map() };
    plan.outcome = await this.#each(format, reader(text, this.#limits, context), looksLike, (r) => {
      plan.results += 1;
      if (plan.results > this.#config.maxResults) {
        throw new PayloadTooLargeError(`An import may hold at most ${this.#config.maxResults} results; nothing was imported.`, { max_results: this.#config.maxResults });
      }
      if (isSkipped(r)) {
        plan.skipped[r.skipped] = (plan.skipped[r.skipped] ?? 0) + 1;
        return;
      }
      const key = single ? '' : targetsKey(r.targets);
      const seen = plan.targets.get(key);
      if (seen) seen.results += 1;
      else plan.targets.set(key, { targets: single ? [] : r.targets, where: r.where, results: 1 });
    });
    return plan;
  }

  /** Reads the file again and writes it, batch by batch. */
  async #write(request: ImportRequest & { format: ImportFormat }, reader: ResultReader, text: TextSource, plan: Plan, assetOf: Map<string, string>, single: boolean): Promise<ImportSummary> {
    const skipped = Object.values(plan.skipped).reduce((a, b) => a + b, 0);
    const summary: ImportSummary = { format: request.format, format_detected: false, results: plan.results, created: 0, seen_again: 0, reopened: 0, duplicates: 0, skipped, skipped_reasons: plan.skipped, assets: [] };
    const ctx = { tenantId: request.tenantId, actor: request.actor, scanId: request.scanId, now: Date.now(), findings: this.#findings, outbox: this.#outbox };
    let batch: Mapped[] = [];
    const flush = async () => {
      const counts = await ingestBatch(ctx, batch);
      summary.created += counts.created;
      summary.seen_again += counts.seenAgain;
      summary.reopened += counts.reopened;
      summary.duplicates += counts.duplicates;
      batch = [];
    };
    await this.#each(request.format, reader(text, this.#limits, plan.outcome.context ?? undefined), null, async (r) => {
      if (isSkipped(r)) return;
      batch.push({ result: r, assetId: assetOf.get(single ? '' : targetsKey(r.targets))! });
      if (batch.length >= this.#config.batchSize) await flush();
    });
    if (batch.length) await flush();
    return summary;
  }

  /** Drives a reader to its end, turning file errors into the 400 that names the place. */
  async #each(format: ImportFormat, results: AsyncGenerator<ReadResult, ReaderOutcome>, looksLike: ImportFormat | null, onResult: (r: ReadResult) => void | Promise<void>): Promise<ReaderOutcome> {
    try {
      for (;;) {
        const next = await results.next();
        if (next.done) return next.value;
        await onResult(next.value);
      }
    } catch (err) {
      if (!(err instanceof ImportFileError)) throw err;
      const hint = looksLike && looksLike !== format ? ` The file looks like a ${LABEL[looksLike]} (format=${looksLike}).` : '';
      const where = err.where ?? '$';
      throw new ValidationError(`The ${LABEL[format]} is not valid at ${where}: ${err.message}. Nothing was imported.${hint}`, [{ field: where, message: err.message }], 'invalid_import_file');
    }
  }
}
