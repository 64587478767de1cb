import type { LogLevel } from '../../core/plugin-api/index.ts';

const MAX_LINE_CHARS = 4000;
const PREFIX = /^(DEBUG|INFO|WARN|WARNING|ERROR):\s?/;

/** One stderr line's level: a leading `DEBUG:`/`INFO:`/`WARN:`/`ERROR:` sets it (and is dropped); INFO otherwise. */
export function levelOf(line: string): { level: LogLevel; message: string } {
  const m = PREFIX.exec(line);
  if (!m) return { level: 'INFO', message: line };
  const level = m[1] === 'WARNING' ? 'WARN' : (m[1] as LogLevel);
  return { level, message: line.slice(m[0].length) };
}

/**
 * Splits a stream of stderr bytes into log lines: at most `maxLines` lines, each at
 * most 4000 characters (a longer run of bytes without a newline is cut into pieces so
 * a process cannot make us buffer without bound), then one WARN and silence. The
 * stream is still drained by the caller, so a chatty process never blocks on a full pipe.
 */
export class StderrLines {
  #partial = '';
  #count = 0;
  #dropped = false;
  readonly #decoder = new TextDecoder();

  constructor(
    private readonly maxLines: number,
    private readonly emit: (level: LogLevel, message: string) => void,
  ) {}

  push(chunk: Buffer): void {
    this.#partial += this.#decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = this.#partial.indexOf('\n')) !== -1) {
      this.#line(this.#partial.slice(0, nl));
      this.#partial = this.#partial.slice(nl + 1);
    }
    while (this.#partial.length > MAX_LINE_CHARS) {
      this.#line(this.#partial.slice(0, MAX_LINE_CHARS));
      this.#partial = this.#partial.slice(MAX_LINE_CHARS);
    }
  }

  end(): void {
    this.#partial += this.#decoder.decode();
    if (this.#partial !== '') this.#line(this.#partial);
    this.#partial = '';
  }

  #line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (this.#count >= this.maxLines) {
      if (!this.#dropped) this.emit('WARN', `more than ${this.maxLines} stderr lines: the rest are dropped`);
      this.#dropped = true;
      return;
    }
    this.#count += 1;
    const { level, message } = levelOf(line);
    this.emit(level, message);
  }
}
