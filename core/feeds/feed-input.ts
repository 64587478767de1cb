import { createHash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { FeedRefusedError, type FeedKind } from './feed-types.ts';

/**
 * A feed's bytes as they arrive (a file, a download), hashed and counted on the way, and
 * decompressed when they are gzip (by their magic bytes, whatever the name says). Nothing
 * is held but the chunk in hand: a 300,000-row EPSS file streams in flat memory.
 */
export class FeedInput {
  readonly #hash = createHash('sha256');
  #bytes = 0;
  #sha256: string | null = null;

  constructor(
    private readonly feed: FeedKind,
    private readonly source: AsyncIterable<Buffer | string>,
    private readonly maxBytes: number,
  ) {}

  /** Bytes read as they came (compressed, if they were). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The SHA-256 of the bytes as they came, once they have all been read. */
  get sha256(): string {
    this.#sha256 ??= this.#hash.digest('hex');
    return this.#sha256;
  }

  /** The content, decompressed: chunks in order. Throws FeedRefusedError for a truncated or oversized feed. */
  async *content(): AsyncGenerator<Buffer> {
    const raw = this.#raw();
    const first = await raw.next();
    if (first.done) return;
    const head = first.value;
    if (!(head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b)) {
      yield head;
      yield* raw;
      return;
    }
    async function* all(): AsyncGenerator<Buffer> {
      yield head;
      yield* raw;
    }
    const gunzip = pipeline(Readable.from(all()), createGunzip(), () => {});
    let out = 0;
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        out += chunk.length;
        if (out > this.maxBytes) throw new FeedRefusedError(this.feed, `byte ${this.maxBytes} (decompressed)`, `the feed is larger than feeds.maxBytes (${this.maxBytes} bytes) once decompressed`);
        yield chunk;
      }
    } catch (err) {
      if (err instanceof FeedRefusedError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code.startsWith('Z_') || /unexpected end of file|incorrect header check|invalid/i.test((err as Error).message)) {
        throw new FeedRefusedError(this.feed, `byte ${this.#bytes} of the gzip stream`, `the gzip data is truncated or corrupt (${(err as Error).message})`);
      }
      throw err;
    } finally {
      gunzip.destroy();
    }
  }

  async *#raw(): AsyncGenerator<Buffer> {
    for await (const piece of this.source) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
      this.#bytes += chunk.length;
      if (this.#bytes > this.maxBytes) throw new FeedRefusedError(this.feed, `byte ${this.maxBytes}`, `the feed is larger than feeds.maxBytes (${this.maxBytes} bytes)`);
      this.#hash.update(chunk);
      yield chunk;
    }
  }
}

/** One line of text and its 1-based number; `terminated` is false for a last line without a newline. */
export interface Line {
  text: string;
  n: number;
  terminated: boolean;
}

/** Splits UTF-8 chunks into lines (LF or CRLF), without holding more than one line. */
export async function* linesOf(chunks: AsyncIterable<Buffer>): AsyncGenerator<Line> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let n = 0;
  for await (const chunk of chunks) {
    rest += decoder.write(chunk);
    let from = 0;
    let at = rest.indexOf('\n');
    while (at >= 0) {
      const text = rest.slice(from, at);
      yield { text: text.endsWith('\r') ? text.slice(0, -1) : text, n: ++n, terminated: true };
      from = at + 1;
      at = rest.indexOf('\n', from);
    }
    rest = rest.slice(from);
  }
  rest += decoder.end();
  if (rest.length) yield { text: rest, n: ++n, terminated: false };
}
