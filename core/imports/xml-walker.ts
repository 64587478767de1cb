import { SaxesParser } from 'saxes';
import { ImportFileError } from './import-file-error.ts';
import type { TextSource } from './import-result.ts';

/** One XML element with its attributes, child elements and text; enough of a DOM for a report's entries. */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
  /** 1-based line of its start tag. */
  line: number;
}

export interface XmlWalkLimits {
  /** Largest item, counted as characters of its names, attribute values and text plus 8 per element. */
  maxItemChars: number;
}

/** The child elements of `el` named `name`. */
export const childrenNamed = (el: XmlElement | undefined, name: string): XmlElement[] => el?.children.filter((c) => c.name === name) ?? [];
/** The first child element of `el` named `name`. */
export const childNamed = (el: XmlElement | undefined, name: string): XmlElement | undefined => el?.children.find((c) => c.name === name);

/**
 * Walks one XML document in a single streamed pass: the elements whose path (element names
 * from the root, the root included) `isItem` selects are assembled one at a time and handed
 * out whole; of the rest only the root's attributes are kept (`rootName`, `rootAttrs`).
 * Memory is bounded by the largest item. The parser (saxes) is strict and never fetches or
 * expands external entities; a malformed or truncated document is an ImportFileError naming
 * the line and column where it broke.
 */
export class XmlWalker {
  rootName: string | null = null;
  rootAttrs: Record<string, string> = {};
  readonly #isItem: (path: readonly string[]) => boolean;
  readonly #limits: XmlWalkLimits;

  constructor(isItem: (path: readonly string[]) => boolean, limits: XmlWalkLimits) {
    this.#isItem = isItem;
    this.#limits = limits;
  }

  /** The items, in document order; `text` is the document (a leading byte-order mark is dropped). */
  async *items(text: TextSource): AsyncGenerator<XmlElement> {
    const parser = new SaxesParser({ position: true });
    const path: string[] = [];
    const open: XmlElement[] = [];
    let ready: XmlElement[] = [];
    let chars = 0;
    let itemDepth = -1;
    parser.on('error', (err) => {
      const m = /^(?:[^:]*:)?(\d+):(\d+): (.*)$/s.exec(err.message);
      throw m ? new ImportFileError(`not well-formed XML (${m[3]})`, `line ${m[1]}, column ${m[2]}`) : new ImportFileError(`not well-formed XML (${err.message})`, null);
    });
    parser.on('opentag', (tag) => {
      const attrs: Record<string, string> = {};
      for (const [k, v] of Object.entries(tag.attributes)) attrs[k] = typeof v === 'string' ? v : v.value;
      if (!path.length) {
        this.rootName = tag.name;
        this.rootAttrs = attrs;
      }
      path.push(tag.name);
      if (itemDepth === -1 && this.#isItem(path)) {
        itemDepth = path.length;
        chars = 0;
      }
      if (itemDepth === -1) return;
      const el: XmlElement = { name: tag.name, attrs, children: [], text: '', line: parser.line };
      open[open.length - 1]?.children.push(el);
      open.push(el);
      this.#count((chars += 8 + tag.name.length + Object.values(attrs).reduce((n, v) => n + v.length, 0)), open[0]!);
    });
    const onText = (t: string) => {
      const top = open[open.length - 1];
      if (!top) return;
      top.text += t;
      this.#count((chars += t.length), open[0]!);
    };
    parser.on('text', onText);
    parser.on('cdata', onText);
    parser.on('closetag', () => {
      if (itemDepth !== -1) {
        const el = open.pop()!;
        if (path.length === itemDepth) {
          ready.push(el);
          itemDepth = -1;
        }
      }
      path.pop();
    });
    let first = true;
    let blank = true;
    for await (let chunk of text()) {
      if (first && chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      first = false;
      if (blank && /\S/.test(chunk)) blank = false;
      if (blank) continue;
      parser.write(chunk);
      if (ready.length) {
        const out = ready;
        ready = [];
        yield* out;
      }
    }
    if (blank) throw new ImportFileError('the file is empty: expected an XML document', 'line 1');
    parser.close();
    yield* ready;
  }

  #count(chars: number, item: XmlElement): void {
    if (chars > this.#limits.maxItemChars) throw new ImportFileError(`one entry is larger than ${this.#limits.maxItemChars} characters`, `line ${item.line}`);
  }
}
