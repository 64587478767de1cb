import { ImportFileError } from './import-file-error.ts';
import type { TextSource } from './import-result.ts';

export interface NumberedLine {
  /** 1-based. */
  line: number;
  text: string;
}

/**
 * The lines of a text, streamed: only the current line is held, and a line longer than
 * `maxChars` is an error naming it instead of a growing buffer. `\r\n` endings and a
 * leading byte-order mark are accepted.
 */
export async function* textLines(text: TextSource, maxChars: number): AsyncGenerator<NumberedLine> {
  let pending = '';
  let line = 0;
  let first = true;
  for await (let chunk of text()) {
    if (first && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
    first = false;
    let start = 0;
    for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
      const piece = pending + chunk.slice(start, nl);
      pending = '';
      start = nl + 1;
      line += 1;
      if (piece.length > maxChars) throw new ImportFileError(`the line is longer than ${maxChars} characters`, `line ${line}`);
      yield { line, text: piece.endsWith('\r') ? piece.slice(0, -1) : piece };
    }
    pending += chunk.slice(start);
    if (pending.length > maxChars) throw new ImportFileError(`the line is longer than ${maxChars} characters`, `line ${line + 1}`);
  }
  if (pending.length) yield { line: line + 1, text: pending.endsWith('\r') ? pending.slice(0, -1) : pending };
}
