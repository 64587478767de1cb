import { jsonParser } from 'stream-json/core/parser.js';
import { jsonVerifier } from 'stream-json/core/utils/verifier.js';
import { jsonPath, type PathPart } from './json-path.ts';
import { ImportFileError } from './import-file-error.ts';

// stream-chain's "no value" marker (a registered symbol, so no import of the transitive package).
const NONE = Symbol.for('object-stream.none');

type Token = { name: string; value?: unknown };
type Container = Record<string, unknown> | unknown[];

interface Frame {
  container: Container;
  key: string | null;
  /** Elements seen so far when the container is an array (items included, though not kept). */
  count: number;
  /** Path of this container in the skeleton; null inside an item (not needed there). */
  path: PathPart[] | null;
  /** Set on an item's root container: its path, and it is emitted when it closes. */
  itemPath: PathPart[] | null;
}

export interface WalkedItem {
  value: unknown;
  path: PathPart[];
}

export interface WalkLimits {
  /** Largest item, counted as characters of its strings and keys plus 8 per token. */
  maxItemChars: number;
  /** Largest document with every item left out (SARIF rules, ZAP site headers…). */
  maxSkeletonChars: number;
}

/**
 * Walks one JSON document in a single streamed pass and in flat memory: the values at the
 * paths `isItem` selects (SARIF results, ZAP alerts) are assembled one at a time and handed
 * out with their path, and everything else is assembled into `skeleton` (with the items
 * left out of their arrays). While the walk runs, `skeleton` holds what was read so far,
 * so a reader can look at an item's context (the run's rules, the site's name) when it
 * arrives. Memory is bounded by the largest item plus the skeleton (WalkLimits). Syntax
 * errors are ImportFileErrors naming the line and column.
 */
export class JsonWalker {
  skeleton: unknown = undefined;
  readonly #isItem: (path: readonly PathPart[]) => boolean;
  readonly #limits: WalkLimits;
  readonly #stack: Frame[] = [];
  #ready: WalkedItem[] = [];
  #itemChars = 0;
  #skeletonChars = 0;

  constructor(isItem: (path: readonly PathPart[]) => boolean, limits: WalkLimits) {
    this.#isItem = isItem;
    this.#limits = limits;
  }

  /** The items, in document order; `chunks` is the text (a leading byte-order mark is dropped). */
  async *items(chunks: () => AsyncIterable<string>): AsyncGenerator<WalkedItem> {
    const parse = jsonParser({ packValues: true, streamValues: false }) as unknown as (chunk: string | symbol) => unknown;
    let first = true;
    let blank = true;
    try {
      for await (let chunk of chunks()) {
        if (first && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
        first = false;
        if (blank && /\S/.test(chunk)) blank = false;
        this.#consume(parse(chunk));
        if (this.#ready.length) {
          const ready = this.#ready;
          this.#ready = [];
          yield* ready;
        }
      }
      this.#consume(parse(NONE));
    } catch (err) {
      if (err instanceof ImportFileError || !(err instanceof Error) || !/^Parser /.test(err.message)) throw err;
      if (blank) throw new ImportFileError('the file is empty: expected a JSON document', 'line 1');
      throw await locateSyntaxError(chunks);
    }
    if (this.skeleton === undefined) throw new ImportFileError('the file is empty: expected a JSON document', 'line 1');
    yield* this.#ready;
    this.#ready = [];
  }

  #consume(result: unknown): void {
    if (result === NONE || result === undefined) return;
    const tokens = (result as { values?: Token[] }).values ?? [result as Token];
    for (const t of tokens) this.#token(t);
  }

  #token(t: Token): void {
    switch (t.name) {
      case 'keyValue':
        this.#stack[this.#stack.length - 1]!.key = t.value as string;
        this.#count((t.value as string).length);
        return;
      case 'startObject':
      case 'startArray':
        this.#open(t.name === 'startObject' ? {} : []);
        return;
      case 'endObject':
      case 'endArray': {
        const frame = this.#stack.pop()!;
        if (frame.itemPath) {
          this.#ready.push({ value: frame.container, path: frame.itemPath });
          this.#itemChars = 0;
        }
        return;
      }
      case 'stringValue':
        this.#place(t.value as string, (t.value as string).length);
        return;
      case 'numberValue':
        this.#place(Number(t.value), 8);
        return;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        this.#place(t.value, 8);
    }
  }

  #open(container: Container): void {
    const placed = this.#place(container, 8);
    this.#stack.push({ container, key: null, count: 0, path: placed.path, itemPath: placed.itemPath });
  }

  /** Attaches a value to its parent (or the skeleton root) and says where it went. */
  #place(value: unknown, size: number): { path: PathPart[] | null; itemPath: PathPart[] | null } {
    const top = this.#stack[this.#stack.length - 1];
    if (!top) {
      this.skeleton = value;
      this.#count(size, false);
      return { path: [], itemPath: null };
    }
    const slot: PathPart = Array.isArray(top.container) ? top.count++ : top.key!;
    if (top.path === null) {
      attach(top.container, slot, value);
      this.#count(size, true);
      return { path: null, itemPath: null };
    }
    const path = [...top.path, slot];
    if (this.#isItem(path)) {
      this.#itemChars = 0;
      if (value === null || typeof value !== 'object') this.#ready.push({ value, path });
      return { path: null, itemPath: path };
    }
    attach(top.container, slot, value);
    this.#count(size, false);
    return { path, itemPath: null };
  }

  #count(size: number, inItem = this.#stack[this.#stack.length - 1]?.path === null): void {
    if (inItem) {
      this.#itemChars += size;
      if (this.#itemChars > this.#limits.maxItemChars) {
        const root = this.#stack.find((f) => f.itemPath);
        throw new ImportFileError(`one entry is larger than ${this.#limits.maxItemChars} characters`, root?.itemPath ? jsonPath(root.itemPath) : null);
      }
    } else {
      this.#skeletonChars += size;
      if (this.#skeletonChars > this.#limits.maxSkeletonChars) throw new ImportFileError(`the document outside its results is larger than ${this.#limits.maxSkeletonChars} characters`, null);
    }
  }
}

function attach(container: Container, slot: PathPart, value: unknown): void {
  if (Array.isArray(container)) container.push(value);
  else container[slot as string] = value;
}

/** Re-reads the text with stream-json's verifier, which knows the line and column of a syntax error. */
async function locateSyntaxError(chunks: () => AsyncIterable<string>): Promise<ImportFileError> {
  const verify = jsonVerifier() as unknown as (chunk: string | symbol) => unknown;
  let first = true;
  try {
    for await (let chunk of chunks()) {
      if (first && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      first = false;
      verify(chunk);
    }
    verify(NONE);
  } catch (err) {
    const e = err as Error & { line?: number; pos?: number };
    if (e.line) return new ImportFileError(`not valid JSON (${e.message.replace(/^Verifier cannot parse input: /, '')})`, `line ${e.line}, column ${e.pos ?? 1}`);
  }
  return new ImportFileError('not valid JSON', null);
}
