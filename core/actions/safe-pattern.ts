/**
 * Refuses `validation.pattern`s that V8's backtracking engine could take exponential
 * (or high-polynomial) time on, at registration, so a parameter check can never stall a
 * worker. The rules, conservative by design (a refused safe pattern can be rewritten; an
 * accepted catastrophic one cannot be taken back):
 * 1. no backreferences (`\1`, `\k<name>`) and no lookarounds (`(?=`, `(?!`, `(?<=`, `(?<!`);
 * 2. no nested repetition where either repetition is unbounded: `(a+)+`, `(\w+\s?)*`, `(a*){2,}`, `(.*x){9}`;
 * 3. an alternation inside a repetition must be plain literals with distinct first
 *    characters: `(cat|dog)+` passes, `(a|a)*` and `(ab|a)*` do not;
 * 4. two unbounded repetitions with only optional items between them must not share a
 *    character: `\d+\.\d+` passes, `.*.*` and `\w+\s?\w+` do not.
 * Patterns are at most 512 characters, and inputs are capped (parameter-validator.ts),
 * which bounds what remains (quadratic at worst).
 */
export const MAX_PATTERN_LENGTH = 512;

type Node =
  | { kind: 'atom'; source: string; literal: string | null }
  | { kind: 'assert' }
  | { kind: 'group'; alts: Node[][] }
  | { kind: 'quant'; child: Node; min: number; max: number };

class Refused extends Error {}

class Parser {
  i = 0;
  constructor(readonly p: string) {}

  alternatives(): Node[][] {
    const alts: Node[][] = [this.sequence()];
    while (this.p[this.i] === '|') {
      this.i++;
      alts.push(this.sequence());
    }
    return alts;
  }

  sequence(): Node[] {
    const seq: Node[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      seq.push(this.quantified(this.atom()));
    }
    return seq;
  }

  atom(): Node {
    const p = this.p;
    const c = p[this.i]!;
    if (c === '(') {
      const head = p.slice(this.i, this.i + 4);
      if (/^\(\?(=|!|<=|<!)/.test(head)) throw new Refused('lookarounds are not allowed');
      this.i += head.startsWith('(?:') ? 3 : head.startsWith('(?<') ? p.indexOf('>', this.i) + 1 - this.i : 1;
      const alts = this.alternatives();
      this.i++; // ')' (the pattern compiled, so it is there)
      return { kind: 'group', alts };
    }
    if (c === '[') {
      const start = this.i++;
      while (p[this.i] !== ']') this.i += p[this.i] === '\\' ? 2 : 1;
      this.i++;
      return { kind: 'atom', source: p.slice(start, this.i), literal: null };
    }
    if (c === '\\') {
      const e = p[this.i + 1]!;
      if (/[1-9]/.test(e) || (e === 'k' && p[this.i + 2] === '<')) throw new Refused('backreferences are not allowed');
      if (e === 'b' || e === 'B') return (this.i += 2), { kind: 'assert' };
      const len = e === 'x' ? 4 : e === 'u' ? 6 : e === 'c' ? 3 : 2;
      const source = p.slice(this.i, this.i + len);
      this.i += len;
      const literal = /[dDwWsS]/.test(e) ? null : source;
      return { kind: 'atom', source, literal };
    }
    this.i++;
    if (c === '^' || c === '$') return { kind: 'assert' };
    if (c === '.') return { kind: 'atom', source: '.', literal: null };
    const source = c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    return { kind: 'atom', source, literal: source };
  }

  quantified(node: Node): Node {
    const rest = this.p.slice(this.i);
    const m = /^(?:([*+?])|\{(\d+)(,(\d*))?\})/.exec(rest);
    if (!m) return node;
    this.i += m[0].length;
    if (this.p[this.i] === '?') this.i++; // lazy: same backtracking, other order
    let min: number;
    let max: number;
    if (m[1]) [min, max] = m[1] === '*' ? [0, Infinity] : m[1] === '+' ? [1, Infinity] : [0, 1];
    else [min, max] = [Number(m[2]), m[3] === undefined ? Number(m[2]) : m[4] === '' ? Infinity : Number(m[4])];
    return { kind: 'quant', child: node, min, max };
  }
}

function* walk(node: Node): Generator<Node> {
  yield node;
  if (node.kind === 'group') for (const alt of node.alts) for (const n of alt) yield* walk(n);
  if (node.kind === 'quant') yield* walk(node.child);
}

function literalBranch(alt: Node[]): string | null {
  let out = '';
  for (const n of alt) {
    if (n.kind !== 'atom' || n.literal === null) return null;
    out += n.literal;
  }
  return out || null;
}

function checkRepetition(q: Extract<Node, { kind: 'quant' }>): void {
  if (q.max <= 1) return;
  for (const inner of walk(q.child)) {
    if (inner.kind === 'quant' && inner.max > 1 && (q.max === Infinity || inner.max === Infinity)) {
      throw new Refused('nested repetition (a repeated group containing a repeated element) can backtrack catastrophically');
    }
    if (inner.kind === 'group' && inner.alts.length > 1) {
      const firsts = inner.alts.map((alt) => literalBranch(alt)?.[0] ?? null);
      if (firsts.some((f) => f === null) || new Set(firsts).size !== firsts.length) {
        throw new Refused('an alternation inside a repetition must be plain literals with distinct first characters');
      }
    }
  }
}

function overlaps(a: string, b: string): boolean {
  const ra = new RegExp(`^(?:${a})$`);
  const rb = new RegExp(`^(?:${b})$`);
  for (let code = 0; code <= 0xffff; code++) {
    const ch = String.fromCharCode(code);
    if (ra.test(ch) && rb.test(ch)) return true;
  }
  return false;
}

function checkSequence(seq: Node[]): void {
  let previous: string | null = null;
  for (const n of seq) {
    if (n.kind === 'quant' && n.max === Infinity && n.child.kind === 'atom') {
      if (previous !== null && overlaps(previous, n.child.source)) {
        throw new Refused('two unbounded repetitions that can match the same characters follow each other');
      }
      previous = n.child.source;
    } else if (!(n.kind === 'quant' && n.min === 0) && n.kind !== 'assert') {
      previous = null;
    }
  }
}

/** Null when the pattern compiles and is safe; otherwise why it is refused. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern);
  } catch (err) {
    return `does not compile: ${(err as Error).message}`;
  }
  try {
    const parser = new Parser(pattern);
    const root: Node = { kind: 'group', alts: parser.alternatives() };
    for (const node of walk(root)) {
      if (node.kind === 'quant') checkRepetition(node);
      if (node.kind === 'group') node.alts.forEach(checkSequence);
    }
    return null;
  } catch (err) {
    if (err instanceof Refused) return `is refused: ${err.message}`;
    return 'could not be analysed';
  }
}
