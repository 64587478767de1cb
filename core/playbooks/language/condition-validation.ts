import type { FieldProblem } from '../../errors.ts';
import { patternProblem } from '../../actions/safe-pattern.ts';
import { SEVERITIES } from '../../domain/severity.ts';
import { contextPathProblem, pathSyntaxProblem } from './context-paths.ts';

/** Operators an operand object may hold; docs/playbook-language.md describes each. */
export const OPERATORS = ['in', 'gte', 'lte', 'gt', 'lt', 'contains', 'matches', 'exists', 'not'] as const;
const COMPARISONS = new Set(['gte', 'lte', 'gt', 'lt']);

/** Bounds that keep one condition set cheap to store and to evaluate per event. */
export const MAX_CONDITIONS = 200;
export const MAX_DEPTH = 8;
/** `not` inside `not`: the checker and the evaluator recurse once per level (10,000 overflowed the stack). */
export const MAX_NOT_DEPTH = 8;
export const MAX_IN_VALUES = 1000;

export interface ConditionWhere {
  /** `event-data`: paths relative to an event's data (triggers); `context`: rooted in CONTEXT_ROOTS (condition steps). */
  paths: 'event-data' | 'context';
  /** Prefix for each problem's `field`, e.g. `trigger.conditions` or `steps[2].if`. */
  field?: string;
}

const join = (prefix: string, key: string): string => (prefix ? `${prefix}.${key}` : key);
const isScalar = (v: unknown): boolean =>
  v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' && !Number.isFinite(v)) return 'a non-finite number';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

class Checker {
  readonly problems: FieldProblem[] = [];
  count = 0;
  constructor(readonly where: ConditionWhere) {}

  add(field: string, message: string): void {
    this.problems.push({ field, message });
  }

  set(set: unknown, field: string, depth: number): void {
    if (!isPlainObject(set)) return this.add(field, `must be an object of field paths to conditions, not ${kindOf(set)}`);
    if (depth > MAX_DEPTH) return this.add(field, `nests "any"/"all" deeper than ${MAX_DEPTH} levels`);
    for (const [key, value] of Object.entries(set)) {
      if (key === 'any' || key === 'all') this.group(key, value, join(field, key), depth);
      else this.entry(key, value, join(field, key));
    }
  }

  group(key: string, value: unknown, field: string, depth: number): void {
    if (!Array.isArray(value)) return this.add(field, `"${key}" takes an array of condition sets, not ${kindOf(value)}`);
    if (value.length === 0) return this.add(field, `"${key}" needs at least one condition set`);
    value.forEach((inner, i) => this.set(inner, `${field}[${i}]`, depth + 1));
  }

  entry(path: string, operand: unknown, field: string): void {
    if (++this.count === MAX_CONDITIONS + 1) this.add(field, `more than ${MAX_CONDITIONS} conditions in one set`);
    const pathProblem = this.where.paths === 'context' ? contextPathProblem(path) : pathSyntaxProblem(path);
    if (pathProblem) this.add(field, `the field path "${path}" ${pathProblem}`);
    this.operand(operand, path, field, '');
  }

  operand(operand: unknown, path: string, field: string, via: string, nots = 0): void {
    const on = `on "${path}"${via}`;
    if (operand === undefined) return this.add(field, `no condition ${on}`);
    if (isScalar(operand)) return;
    if (Array.isArray(operand)) {
      return this.add(field, `a plain value ${on} must be a string, number, boolean or null; for one of several values use {"in": [...]}`);
    }
    if (!isPlainObject(operand)) return this.add(field, `the condition ${on} is ${kindOf(operand)}`);
    const keys = Object.keys(operand);
    if (keys.length === 0) return this.add(field, `an empty operator object ${on}: give at least one of ${OPERATORS.join(', ')}`);
    for (const op of keys) this.operator(op, operand[op], path, field, via, nots);
  }

  operator(op: string, arg: unknown, path: string, field: string, via: string, nots: number): void {
    const label = `"${op}" on "${path}"${via}`;
    if (!(OPERATORS as readonly string[]).includes(op)) {
      return this.add(field, `unknown operator "${op}" on "${path}"${via} (operators: ${OPERATORS.join(', ')})`);
    }
    if (op === 'in') {
      if (!Array.isArray(arg)) return this.add(field, `${label} takes an array of values, not ${kindOf(arg)}`);
      if (arg.length === 0) return this.add(field, `${label} needs at least one value (an empty list never holds)`);
      if (arg.length > MAX_IN_VALUES) return this.add(field, `${label} holds more than ${MAX_IN_VALUES} values`);
      const bad = arg.findIndex((v) => !isScalar(v));
      if (bad >= 0) this.add(field, `${label}: value ${bad} is ${kindOf(arg[bad])}; values are strings, numbers, booleans or null`);
    } else if (COMPARISONS.has(op)) {
      if (typeof arg === 'number' && Number.isFinite(arg)) return;
      if (typeof arg === 'string' && (SEVERITIES as readonly string[]).includes(arg)) return;
      const got = typeof arg === 'string' ? `the string "${arg.slice(0, 40)}"` : kindOf(arg);
      this.add(field, `${label} compares numbers or severities (${SEVERITIES.join(', ')}), not ${got}`);
    } else if (op === 'contains') {
      if (!isScalar(arg)) this.add(field, `${label} takes one string, number, boolean or null, not ${kindOf(arg)}`);
    } else if (op === 'matches') {
      if (typeof arg !== 'string') return this.add(field, `${label} takes a regular expression as a string, not ${kindOf(arg)}`);
      const problem = patternProblem(arg);
      if (problem) this.add(field, `${label}: the pattern ${problem}`);
    } else if (op === 'exists') {
      if (typeof arg !== 'boolean') this.add(field, `${label} takes true or false, not ${kindOf(arg)}`);
    } else if (nots >= MAX_NOT_DEPTH) {
      this.add(field, `the condition on "${path}" nests "not" deeper than ${MAX_NOT_DEPTH} levels`);
    } else {
      this.operand(arg, path, field, `${via} inside "not"`, nots + 1);
    }
  }
}

/**
 * Every problem of a condition set, each naming where (`field`) and what: the path, the
 * operator and the operand at fault. Empty when the set is valid.
 */
export function conditionProblems(set: unknown, where: ConditionWhere): FieldProblem[] {
  const checker = new Checker(where);
  const field = where.field ?? '';
  checker.set(set, field, 0);
  if (where.paths === 'context' && isPlainObject(set) && Object.keys(set).length === 0) {
    checker.add(field, 'a condition step needs at least one condition');
  }
  return checker.problems;
}
