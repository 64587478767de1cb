import { linesOf } from './feed-input.ts';
import { FeedRefusedError, feedDateIso, isCveId, type EpssRow, type FeedHeader } from './feed-types.ts';

const HEADER = 'cve,epss,percentile';
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

function refuse(where: string, problem: string): FeedRefusedError {
  return new FeedRefusedError('epss', where, problem);
}

/** `#model_version:v2025.03.14,score_date:2026-11-27T00:00:00+0000` → the feed's version and date. */
export function epssHeader(line: string): FeedHeader {
  if (!line.startsWith('#')) throw refuse('line 1', `expected the "#model_version:…,score_date:…" comment line, found "${line.slice(0, 60)}"`);
  const fields = new Map<string, string>();
  for (const part of line.slice(1).split(',')) {
    const colon = part.indexOf(':');
    if (colon > 0) fields.set(part.slice(0, colon).trim(), part.slice(colon + 1).trim());
  }
  const version = fields.get('model_version');
  const date = fields.get('score_date');
  if (!version) throw refuse('line 1', 'the comment line has no model_version');
  if (!date) throw refuse('line 1', 'the comment line has no score_date');
  const feedDate = feedDateIso(date);
  if (!feedDate) throw refuse('line 1', `score_date "${date}" is not a date`);
  return { feedDate, feedVersion: version.slice(0, 64) };
}

function score(value: string | undefined, where: string, column: string): number {
  const n = value !== undefined && NUMBER.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n)) throw refuse(where, `${column} "${value ?? ''}" is not a number`);
  if (n < 0 || n > 1) throw refuse(where, `${column} ${value} is outside [0, 1]`);
  return n;
}

/**
 * Reads FIRST's EPSS CSV (decompressed content): the comment line, the header
 * `cve,epss,percentile`, then one row per CVE. Calls `onHeader` before the first row and
 * yields rows as they are read. Refuses (FeedRefusedError naming the line) a missing or
 * different header, a row that is not three fields, an invalid CVE id, a score or
 * percentile that is not a number in [0, 1], a blank line, a last line without its newline
 * (the file was cut short) and a file with no rows.
 */
export async function* readEpss(content: AsyncIterable<Buffer>, onHeader: (header: FeedHeader) => void): AsyncGenerator<EpssRow> {
  let rows = 0;
  for await (const line of linesOf(content)) {
    const where = `line ${line.n}`;
    if (line.n === 1) {
      onHeader(epssHeader(line.text.replace(/^\uFEFF/, '')));
      continue;
    }
    if (line.n === 2) {
      if (line.text.trim() !== HEADER) throw refuse(where, `expected the header "${HEADER}", found "${line.text.slice(0, 60)}"`);
      continue;
    }
    if (!line.terminated) throw refuse(where, 'the last line ends without a newline: the file was cut short');
    if (line.text === '') throw refuse(where, 'blank line');
    const fields = line.text.split(',');
    if (fields.length !== 3) throw refuse(where, `expected 3 fields (cve,epss,percentile), found ${fields.length}`);
    const [cve, epss, percentile] = fields as [string, string, string];
    if (!isCveId(cve)) throw refuse(where, `"${String(cve).slice(0, 40)}" is not a CVE id`);
    rows++;
    yield { cve_id: cve, epss: score(epss, where, 'epss'), percentile: score(percentile, where, 'percentile') };
  }
  if (rows === 0) throw refuse('end of file', 'the feed has no score rows (an empty or cut-short file)');
}
