import { Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ExportFinding } from './finding-export-repository.ts';

export const EXPORT_FORMATS = ['csv', 'json', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  pdf: 'application/pdf',
};

const EVIDENCE_KEYS = ['url', 'method', 'parameter', 'payload', 'response_indicator'] as const;

/** CSV columns, in order: the detail view flattened (evidence keys as columns). */
export const CSV_COLUMNS = [
  'id', 'title', 'severity', 'cvss', 'cvss_vector', 'status', 'asset_id', 'asset_name', 'asset_type', 'scan_id',
  'description', 'remediation', ...EVIDENCE_KEYS.map((k) => `evidence_${k}`), 'references', 'tags', 'discovered_at', 'updated_at',
];

const text = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

function csvRecord(f: ExportFinding): Record<string, string | number> {
  const record: Record<string, string | number> = {
    id: f.id, title: f.title, severity: f.severity, cvss: f.cvss.toFixed(1), cvss_vector: f.cvss_vector, status: f.status,
    asset_id: f.asset.id, asset_name: f.asset.name, asset_type: f.asset.type, scan_id: f.scan_id ?? '',
    description: f.description, remediation: f.remediation,
    // References are URLs (no spaces); tags are comma-separated like the bulk import's tags cell.
    references: f.references.join(' '), tags: f.tags.join(','), discovered_at: f.discovered_at, updated_at: f.updated_at,
  };
  for (const key of EVIDENCE_KEYS) record[`evidence_${key}`] = text(f.evidence[key]);
  return record;
}

/**
 * Findings → CSV (RFC 4180 quoting, header row). `escape_formulas` prefixes a `'` to
 * any cell starting with = + - @ TAB or CR, so a finding title like `=HYPERLINK(…)`
 * taken from a scanned page cannot run as a formula in a spreadsheet (CSV injection).
 */
export function csvStages(): Transform[] {
  const toRecord = new Transform({
    writableObjectMode: true,
    readableObjectMode: true,
    transform(f: ExportFinding, _enc, done) {
      done(null, csvRecord(f));
    },
  });
  return [toRecord, stringify({ header: true, columns: CSV_COLUMNS, escape_formulas: true, record_delimiter: '\r\n' })];
}

/** Findings → one JSON array, written element by element (never the whole array in memory). */
export function jsonStages(): Transform[] {
  return [jsonArray()];
}

function jsonArray(): Transform {
  let first = true;
  return new Transform({
    writableObjectMode: true,
    transform(f: ExportFinding, _enc, done) {
      done(null, (first ? '[\n' : ',\n') + JSON.stringify(f));
      first = false;
    },
    flush(done) {
      done(null, first ? '[]\n' : '\n]\n');
    },
  });
}
