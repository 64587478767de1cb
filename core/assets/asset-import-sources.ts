import { Transform, type Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { InputError, PayloadTooLargeError } from '../errors.ts';
import type { ImportRow } from './asset-import.ts';
import { jsonArrayElements } from './json-array-stream.ts';

/** Passes bytes through and fails the stream with a 413 once more than `maxBytes` went by. */
export function limitBytes(source: Readable, maxBytes: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new PayloadTooLargeError(`An import body may be at most ${maxBytes} bytes; nothing was imported.`, { max_bytes: maxBytes }));
      else done(null, chunk);
    },
  });
  source.on('error', (err) => counter.destroy(err));
  return source.pipe(counter);
}

const HEADERS = [['name', 'type', 'tags'], ['name', 'type']];

/**
 * Rows of a CSV import: header `name,type,tags` (or `name,type`), tags in one cell
 * separated by commas (quote the cell). A row with the wrong number of cells is a
 * row error; unreadable CSV (e.g. an unclosed quote) fails the whole import.
 */
export async function* csvRows(body: Readable): AsyncGenerator<ImportRow> {
  const parser = body.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: true }));
  body.on('error', (err) => parser.destroy(err));
  let header: string[] | null = null;
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      if (!header) {
        header = record.map((h) => h.toLowerCase());
        if (!HEADERS.some((h) => h.length === header!.length && h.every((v, i) => v === header![i]))) {
          throw new InputError('The CSV header must be exactly "name,type,tags" (or "name,type").', 'invalid_csv_header');
        }
        continue;
      }
      row += 1;
      if (record.length !== header.length) {
        yield { row, name: record[0] ?? null, type: null, tags: [], error: { code: 'invalid_row', message: `Expected ${header.length} cells, found ${record.length}.` } };
        continue;
      }
      const tags = header.length === 3 ? record[2]!.split(',').map((t) => t.trim()).filter(Boolean) : [];
      yield { row, name: record[0], type: record[1], tags };
    }
  } catch (err) {
    const e = err as Error & { code?: string; lines?: number };
    // Every parse error is a CsvError; not every code starts with CSV_ (INVALID_OPENING_QUOTE does not).
    if (err instanceof CsvError || e.code?.startsWith('CSV_')) throw new InputError(`The CSV could not be read (line ${e.lines ?? '?'}): ${e.message}`, 'invalid_csv');
    throw err;
  }
  if (!header) throw new InputError('The CSV body is empty: expected the header "name,type,tags".', 'invalid_csv_header');
}

/** Rows of a JSON import `{"assets": [{name, type, tags}, …]}`, parsed one element at a time. */
export async function* jsonRows(body: Readable): AsyncGenerator<ImportRow> {
  body.setEncoding('utf8');
  let row = 0;
  for await (const element of jsonArrayElements(body as AsyncIterable<string>, 'assets')) {
    row += 1;
    if (typeof element !== 'object' || element === null || Array.isArray(element)) {
      yield { row, name: null, type: null, tags: [], error: { code: 'invalid_row', message: 'Each element of assets must be an object {name, type, tags}.' } };
      continue;
    }
    const e = element as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !['name', 'type', 'tags'].includes(k));
    const error = unknown.length ? { code: 'invalid_row', message: `Unknown field "${unknown[0]}" (allowed: name, type, tags).` } : undefined;
    yield { row, name: e.name, type: e.type, tags: e.tags, error };
  }
}
