import { MAX_PATH_LENGTH, PATH_SYNTAX } from './context-paths.ts';

/**
 * The `{{ path }}` syntax: two braces, optional whitespace, a dotted path, optional
 * whitespace, two braces. Anything else between `{{` and `}}`, and a `{{` that is never
 * closed, is malformed: `{{` is reserved in parameter strings (there is no escape), so
 * a typo is refused at creation instead of being sent as literal text.
 */
const TOKEN = /\{\{([\s\S]*?)\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

export type Token =
  | { kind: 'placeholder'; raw: string; path: string; start: number; end: number }
  | { kind: 'malformed'; raw: string; reason: string };

function validPath(inner: string): boolean {
  return inner.length <= MAX_PATH_LENGTH && PATH_SYNTAX.test(inner);
}

/** Every placeholder and every malformed `{{ … }}` of one string, in order. */
export function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  let lastEnd = 0;
  for (const m of text.matchAll(TOKEN)) {
    const raw = m[0];
    const inner = m[1]!.trim();
    const start = m.index!;
    lastEnd = start + raw.length;
    if (inner.includes('{{')) tokens.push({ kind: 'malformed', raw, reason: 'placeholders do not nest' });
    else if (inner === '') tokens.push({ kind: 'malformed', raw, reason: 'the placeholder is empty' });
    else if (!validPath(inner)) tokens.push({ kind: 'malformed', raw, reason: 'is not a dotted path of letters, digits, "_" and "-" (e.g. {{ asset.name }})' });
    else tokens.push({ kind: 'placeholder', raw, path: inner, start, end: lastEnd });
  }
  if (text.slice(lastEnd).includes('{{')) tokens.push({ kind: 'malformed', raw: text.slice(text.indexOf('{{', lastEnd)).slice(0, 40), reason: 'a "{{" is never closed with "}}"' });
  return tokens;
}

/** The path when the whole string is exactly one placeholder (no text around it). */
export function wholePlaceholder(text: string): string | null {
  const m = WHOLE.exec(text);
  return m && validPath(m[1]!) ? m[1]! : null;
}

/** Nesting of a step's parameter values: the template walks below recurse once per level (5,000 overflowed the stack). */
export const MAX_VALUE_DEPTH = 32;

/** Whether a JSON value nests objects or arrays deeper than `max` levels; iterative, so any depth is safe to ask. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Visits every string leaf of a JSON value with its location (`body.items[0]`); object keys are not leaves. */
export function forEachString(value: unknown, visit: (text: string, at: string) => void, at = ''): void {
  if (typeof value === 'string') visit(value, at);
  else if (Array.isArray(value)) value.forEach((v, i) => forEachString(v, visit, `${at}[${i}]`));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) forEachString(v, visit, at ? `${at}.${k}` : k);
  }
}

/** Rebuilds a JSON value with each string leaf replaced by `render(leaf)`. */
export function mapStrings(value: unknown, render: (text: string) => unknown): unknown {
  if (typeof value === 'string') return render(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, render));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: mapStrings(v, render), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}
