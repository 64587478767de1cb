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

/** The spec's evidence keys: always exported as columns, in this order, even when empty. */
export const SPEC_EVIDENCE_KEYS = ['url', 'method', 'parameter', 'payload', 'response_indicator'] as const;

/**
 * The evidence keys an export's CSV gets a column for: the spec's five first, then every
 * other key found in the exported findings (a port scan's `port`, `service`, `version`, an
 * import's `file`…) in code-point order, so the same findings always give the same header.
 */
export function evidenceColumnsFor(foundKeys: Iterable<string>): string[] {
  const spec = new Set<string>(SPEC_EVIDENCE_KEYS);
  const extra = [...new Set(foundKeys)].filter((k) => !spec.has(k)).sort();
  return [...SPEC_EVIDENCE_KEYS, ...extra];
}

/** CSV columns, in order: the detail view flattened, one `evidence_<key>` column per evidence key. */
export function csvColumns(evidenceKeys: readonly string[] = SPEC_EVIDENCE_KEYS): string[] {
  return [
    'id', 'title', 'severity', 'cvss', 'cvss_vector', 'status', 'asset_id', 'asset_name', 'asset_type', 'scan_id',
    'description', 'remediation', ...evidenceKeys.map((k) => `evidence_${k}`), 'references', 'tags', 'discovered_at', 'updated_at',
  ];
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A cell a spreadsheet would evaluate: one starting with = + - @ (ASCII or their full-width
 * forms ＝ ＋ － ＠, which spreadsheets read alike), also behind leading white space (they
 * skip it), or starting with TAB or CR. Such a cell gets a leading `'` (CSV injection).
 */
const FORMULA = /^(?:[\t\r]|[\s\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/;

export function escapeFormula(cell: string): string {
  return FORMULA.test(cell) ? `'${cell}` : cell;
}

function csvRecord(f: ExportFinding, evidenceKeys: readonly string[]): Record<string, string | number> {
  const record: Record<string, string | number> = {
    id: f.id, title: f.title, severity: f.severity, cvss: f.cvss.toFixed(1), cvss_vector: f.cvss_vector, status: f.status,
    asset_id: f.asset.id, asset_name: f.asset.name, asset_type: f.asset.type, scan_id: f.scan_id ?? '',
    description: f.description, remediation: f.remediation,
    // References are URLs (no spaces); tags are comma-separated like the bulk import's tags cell.
    references: f.references.join(' '), tags: f.tags.join(','), discovered_at: f.discovered_at, updated_at: f.updated_at,
  };
  for (const key of evidenceKeys) record[`evidence_${key}`] = text(f.evidence[key]);
  for (const [key, value] of Object.entries(record)) if (typeof value === 'string') record[key] = escapeFormula(value);
  return record;
}

/**
 * Findings → CSV (RFC 4180 quoting, header row). Every cell passes `escapeFormula`, so a
 * finding title like `=HYPERLINK(…)` taken from a scanned page cannot run as a formula in
 * a spreadsheet (CSV injection).
 */
export function csvStages(evidenceKeys: readonly string[] = SPEC_EVIDENCE_KEYS): Transform[] {
  const toRecord = new Transform({
    writableObjectMode: true,
    readableObjectMode: true,
    transform(f: ExportFinding, _enc, done) {
      done(null, csvRecord(f, evidenceKeys));
    },
  });
  // Evidence keys come from scanned pages and imported files: the header cells are guarded too.
  const columns = csvColumns(evidenceKeys).map((key) => ({ key, header: escapeFormula(key) }));
  return [toRecord, stringify({ header: true, columns, record_delimiter: '\r\n' })];
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
