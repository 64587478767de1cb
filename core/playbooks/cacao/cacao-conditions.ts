import { CONTEXT_ROOTS, type ConditionOperand, type ConditionSet, type JsonScalar } from '../playbook-types.ts';

/**
 * Rampart conditions as CACAO `condition` strings (STIX-patterning-like) and back.
 * Export renders every condition; import (of a document without the Rampart extension,
 * which carries the native condition losslessly) parses the subset that maps honestly:
 * `[ … ]`, parentheses, AND/OR, comparisons `= != > >= < <=`, `IN ( … )` and `MATCHES`,
 * with literals in single quotes, numbers and true/false. A left side is either a
 * playbook variable `__x__:value` (Rampart's `parameters.x`) or `rampart:<context path>`
 * (`rampart:steps.s1.output.status`). Anything else is refused by the importer.
 */

const literal = (v: JsonScalar): string => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v));

function leftSide(path: string, variables: ReadonlySet<string>): string {
  const m = /^parameters\.([A-Za-z_][A-Za-z0-9_-]*)$/.exec(path);
  return m && variables.has(m[1]!) ? `__${m[1]}__:value` : `rampart:${path}`;
}

function comparisons(lhs: string, operand: ConditionOperand): string[] {
  if (operand === null || typeof operand !== 'object') return [`${lhs} = ${literal(operand)}`];
  const out: string[] = [];
  const o = operand;
  if (o.in !== undefined) out.push(`${lhs} IN (${o.in.map(literal).join(', ')})`);
  for (const [op, sign] of [['gte', '>='], ['lte', '<='], ['gt', '>'], ['lt', '<']] as const) if (o[op] !== undefined) out.push(`${lhs} ${sign} ${literal(o[op]!)}`);
  if (o.contains !== undefined) out.push(`${lhs} CONTAINS ${literal(o.contains)}`);
  if (o.matches !== undefined) out.push(`${lhs} MATCHES ${literal(o.matches)}`);
  if (o.exists !== undefined) out.push(`${o.exists ? '' : 'NOT '}EXISTS ${lhs}`);
  if (o.not !== undefined) {
    const inner = comparisons(lhs, o.not);
    out.push(inner.length === 1 && /^\S+ = /.test(inner[0]!) ? inner[0]!.replace(' = ', ' != ') : `NOT (${inner.join(' AND ')})`);
  }
  return out;
}

function renderSet(set: ConditionSet, variables: ReadonlySet<string>): string[] {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) continue;
    if ((key === 'any' || key === 'all') && Array.isArray(value)) {
      const inner = (value as ConditionSet[]).map((s) => renderSet(s, variables).join(' AND ') || 'true');
      parts.push(`(${inner.join(key === 'any' ? ' OR ' : ' AND ')})`);
    } else {
      parts.push(...comparisons(leftSide(key, variables), value as ConditionOperand));
    }
  }
  return parts;
}

/** The CACAO `condition` of a Rampart condition step; `variables` are the playbook parameter names. */
export function conditionToCacao(set: ConditionSet, variables: ReadonlySet<string>): string {
  return `[${renderSet(set, variables).join(' AND ') || 'true'}]`;
}

type Token = { kind: 'punct' | 'op' | 'word' | 'string' | 'number'; text: string; value?: JsonScalar };

function tokenize(input: string): Token[] | null {
  const tokens: Token[] = [];
  const re = /\s*(?:(\[|\]|\(|\)|,)|(!=|>=|<=|=|>|<)|'((?:\\.|[^'\\])*)'|(-?\d+(?:\.\d+)?)(?![\w:.])|([A-Za-z_][\w.:-]*))/y;
  let pos = 0;
  while (pos < input.length) {
    if (/^\s*$/.test(input.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(input);
    if (!m) return null;
    pos = re.lastIndex;
    if (m[1]) tokens.push({ kind: 'punct', text: m[1] });
    else if (m[2]) tokens.push({ kind: 'op', text: m[2] });
    else if (m[3] !== undefined) tokens.push({ kind: 'string', text: m[0], value: m[3].replace(/\\(.)/g, '$1') });
    else if (m[4]) tokens.push({ kind: 'number', text: m[4], value: Number(m[4]) });
    else tokens.push({ kind: 'word', text: m[5]! });
  }
  return tokens;
}

class Unparsable extends Error {}

/** Parentheses (or brackets) inside each other: the parser recurses once per level (20,000 overflowed the stack). */
export const MAX_PAREN_DEPTH = 32;

/**
 * A Rampart condition from a CACAO `condition`, or a message saying why it cannot be
 * mapped. `variables` are the playbook variable names (without underscores).
 */
export function conditionFromCacao(input: string, variables: ReadonlySet<string>): { set: ConditionSet } | { problem: string } {
  const tokens = tokenize(input);
  if (!tokens || tokens.length === 0) return { problem: 'the condition is not in the supported STIX subset (comparisons joined by AND/OR)' };
  let i = 0;
  const peek = () => tokens[i];
  const take = (text?: string): Token => {
    const t = tokens[i];
    if (!t || (text !== undefined && t.text.toUpperCase() !== text)) throw new Unparsable(`expected ${text ?? 'more'} at token ${i + 1}`);
    i++;
    return t;
  };
  const value = (): JsonScalar => {
    const t = take();
    if (t.kind === 'string' || t.kind === 'number') return t.value!;
    if (t.kind === 'word' && /^(true|false)$/i.test(t.text)) return t.text.toLowerCase() === 'true';
    throw new Unparsable(`"${t.text}" is not a literal`);
  };
  const path = (t: Token): string => {
    const v = /^__([A-Za-z_][A-Za-z0-9_-]*)__:value$/.exec(t.text);
    if (v) {
      if (!variables.has(v[1]!)) throw new Unparsable(`${t.text} is not a playbook variable`);
      return `parameters.${v[1]}`;
    }
    const r = /^rampart:((\w+)\..+)$/.exec(t.text);
    if (r && (CONTEXT_ROOTS as readonly string[]).includes(r[2]!)) return r[1]!;
    throw new Unparsable(`"${t.text}" is neither a playbook variable (__name__:value) nor a rampart: context path`);
  };
  const comparison = (): ConditionSet => {
    const lhs = take();
    if (lhs.kind !== 'word') throw new Unparsable(`"${lhs.text}" cannot start a comparison`);
    const p = path(lhs);
    const op = take();
    const word = op.text.toUpperCase();
    if (word === 'IN') {
      take('(');
      const items: JsonScalar[] = [value()];
      while (peek()?.text === ',') { take(','); items.push(value()); }
      take(')');
      return { [p]: { in: items } };
    }
    if (word === 'MATCHES') {
      const re = value();
      if (typeof re !== 'string') throw new Unparsable('MATCHES takes a quoted pattern');
      return { [p]: { matches: re } };
    }
    const ops: Record<string, (v: JsonScalar) => ConditionOperand> = {
      '=': (v) => v, '!=': (v) => ({ not: v }), '>': (v) => ({ gt: v as number }), '>=': (v) => ({ gte: v as number }), '<': (v) => ({ lt: v as number }), '<=': (v) => ({ lte: v as number }),
    };
    const make = op.kind === 'op' ? ops[op.text] : undefined;
    if (!make) throw new Unparsable(`operator "${op.text}" is not supported`);
    return { [p]: make(value()) };
  };
  const join = (parts: ConditionSet[], key: 'any' | 'all'): ConditionSet => (parts.length === 1 ? parts[0]! : { [key]: parts });
  let open = 0;
  const primary = (): ConditionSet => {
    const t = peek();
    if (t?.text === '(' || t?.text === '[') {
      if (++open > MAX_PAREN_DEPTH) throw new Unparsable(`it nests parentheses deeper than ${MAX_PAREN_DEPTH} levels`);
      take(t.text);
      const inner = expr();
      open--;
      take(t.text === '(' ? ')' : ']');
      return inner;
    }
    return comparison();
  };
  const conj = (): ConditionSet => {
    const parts = [primary()];
    while (peek()?.text.toUpperCase() === 'AND') { take('AND'); parts.push(primary()); }
    return join(parts, 'all');
  };
  const expr = (): ConditionSet => {
    const parts = [conj()];
    while (peek()?.text.toUpperCase() === 'OR') { take('OR'); parts.push(conj()); }
    return join(parts, 'any');
  };
  try {
    const set = expr();
    if (i !== tokens.length) throw new Unparsable(`unexpected "${tokens[i]!.text}"`);
    return { set };
  } catch (err) {
    if (err instanceof Unparsable) return { problem: `the condition cannot be mapped: ${err.message}` };
    throw err;
  }
}
