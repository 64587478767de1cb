import { FeedRefusedError, feedDateIso, isCveId, type FeedHeader, type KevRow } from './feed-types.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CWE = /^(?:CWE-\d+|NVD-CWE-[A-Za-z]+)$/;

function refuse(where: string, problem: string): FeedRefusedError {
  return new FeedRefusedError('kev', where, problem);
}

/** Where a JSON.parse error points: "line L, column C", from the position in its message. */
function jsonPosition(text: string, err: Error): string {
  const at = /position (\d+)/.exec(err.message);
  if (!at) return `byte ${Buffer.byteLength(text)} (end of document)`;
  const before = text.slice(0, Number(at[1]));
  const lines = before.split('\n');
  return `line ${lines.length}, column ${lines[lines.length - 1]!.length + 1}`;
}

function text(entry: Record<string, unknown>, key: string, where: string, optional = false): string {
  const value = entry[key];
  if (value === undefined && optional) return '';
  if (typeof value !== 'string') throw refuse(`${where}.${key}`, value === undefined ? 'missing' : 'not a string');
  return value;
}

function date(entry: Record<string, unknown>, key: string, where: string): string {
  const value = text(entry, key, where);
  if (!DATE.test(value) || !Number.isFinite(Date.parse(value))) throw refuse(`${where}.${key}`, `"${value.slice(0, 40)}" is not a date (YYYY-MM-DD)`);
  return value;
}

function entryRow(entry: unknown, i: number): KevRow {
  const where = `$.vulnerabilities[${i}]`;
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw refuse(where, 'not an object');
  const e = entry as Record<string, unknown>;
  const cve = text(e, 'cveID', where);
  if (!isCveId(cve)) throw refuse(`${where}.cveID`, `"${String(cve).slice(0, 40)}" is not a CVE id`);
  const cwes = e.cwes === undefined ? [] : e.cwes;
  if (!Array.isArray(cwes) || cwes.some((c) => typeof c !== 'string' || !CWE.test(c))) throw refuse(`${where}.cwes`, 'not a list of CWE ids');
  const ransomware = text(e, 'knownRansomwareCampaignUse', where);
  if (ransomware.length > 16) throw refuse(`${where}.knownRansomwareCampaignUse`, `"${ransomware.slice(0, 40)}" is not Known or Unknown`);
  return {
    cve_id: cve,
    vendor_project: text(e, 'vendorProject', where).slice(0, 255),
    product: text(e, 'product', where).slice(0, 255),
    vulnerability_name: text(e, 'vulnerabilityName', where).slice(0, 512),
    date_added: date(e, 'dateAdded', where),
    short_description: text(e, 'shortDescription', where),
    required_action: text(e, 'requiredAction', where),
    due_date: date(e, 'dueDate', where),
    known_ransomware: ransomware,
    notes: text(e, 'notes', where, true),
    cwes: JSON.stringify(cwes),
  };
}

/**
 * Reads CISA's KEV catalog (its JSON: `catalogVersion`, `dateReleased`, `count`,
 * `vulnerabilities[]`). The catalog is small (about 1,500 entries, ~1.5 MB), so it is
 * parsed whole; the store still writes it in batches. Refuses (FeedRefusedError naming
 * the JSON path or line) a document that is not JSON or is cut short, a missing header
 * field, a `count` that differs from the entries, an invalid CVE id or date, a duplicate
 * CVE and an empty catalog. Unknown extra fields are ignored: CISA adds fields over time.
 */
export function readKev(content: string): { header: FeedHeader; rows: KevRow[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(content.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw refuse(jsonPosition(content, err as Error), `not valid JSON, or cut short (${(err as Error).message})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw refuse('$', 'not a JSON object');
  const d = doc as Record<string, unknown>;
  const version = text(d, 'catalogVersion', '$');
  const released = text(d, 'dateReleased', '$');
  const feedDate = feedDateIso(released);
  if (!feedDate) throw refuse('$.dateReleased', `"${released.slice(0, 40)}" is not a date`);
  if (!Array.isArray(d.vulnerabilities)) throw refuse('$.vulnerabilities', d.vulnerabilities === undefined ? 'missing' : 'not a list');
  const entries = d.vulnerabilities as unknown[];
  if (!Number.isInteger(d.count)) throw refuse('$.count', d.count === undefined ? 'missing' : 'not an integer');
  if (d.count !== entries.length) throw refuse('$.count', `the catalog says ${String(d.count)} entries but lists ${entries.length}`);
  if (entries.length === 0) throw refuse('$.vulnerabilities', 'the catalog lists no entries');
  const seen = new Set<string>();
  const rows = entries.map((entry, i) => {
    const row = entryRow(entry, i);
    if (seen.has(row.cve_id)) throw refuse(`$.vulnerabilities[${i}].cveID`, `${row.cve_id} is listed twice`);
    seen.add(row.cve_id);
    return row;
  });
  return { header: { feedDate, feedVersion: version.slice(0, 64) }, rows };
}
