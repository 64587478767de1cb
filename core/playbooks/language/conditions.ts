import type { ConditionOperand, ConditionSet, JsonScalar } from '../playbook-types.ts';
import { SEVERITY_RANK, type Severity } from '../../domain/severity.ts';
import { resolvePath } from './context-paths.ts';

export { conditionProblems, OPERATORS, type ConditionWhere } from './condition-validation.ts';

/**
 * `matches` looks at no more than this many characters of a value: with the patterns
 * patternProblem accepts (quadratic at worst) this bounds the time one event can cost.
 */
export const MATCH_INPUT_CAP = 4096;

type Operators = Exclude<ConditionOperand, JsonScalar>;
type Lookup = { found: boolean; value: unknown };

const compiled = new Map<string, RegExp>();

function regex(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(pattern);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

const isSeverity = (v: unknown): v is Severity => typeof v === 'string' && Object.hasOwn(SEVERITY_RANK, v);

/** `value <op> operand` as a sign: severities by rank, numbers by value; anything else does not compare. */
function compare(value: unknown, operand: unknown): number | null {
  if (isSeverity(operand)) return isSeverity(value) ? SEVERITY_RANK[value] - SEVERITY_RANK[operand] : null;
  if (typeof operand === 'number' && typeof value === 'number' && Number.isFinite(value)) return value - operand;
  return null;
}

/** The string form `matches` looks at: strings, numbers and booleans; other values never match. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value.slice(0, MATCH_INPUT_CAP);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

function holdsOperator(op: string, arg: unknown, at: Lookup): boolean {
  const { found, value } = at;
  switch (op) {
    case 'in':
      return found && Array.isArray(arg) && arg.some((v) => v === value);
    case 'gte':
    case 'lte':
    case 'gt':
    case 'lt': {
      const sign = found ? compare(value, arg) : null;
      if (sign === null) return false;
      return op === 'gte' ? sign >= 0 : op === 'lte' ? sign <= 0 : op === 'gt' ? sign > 0 : sign < 0;
    }
    case 'contains':
      if (Array.isArray(value)) return value.some((v) => v === arg);
      return typeof value === 'string' && typeof arg === 'string' && value.includes(arg);
    case 'matches': {
      const text = found && typeof arg === 'string' ? textOf(value) : null;
      return text !== null && regex(arg as string).test(text);
    }
    case 'exists':
      return (found && value !== null) === arg;
    case 'not':
      return !holdsOperand(arg as ConditionOperand, at);
    default:
      return false; // an unknown operator never holds (validation refuses it before storage)
  }
}

function holdsOperand(operand: ConditionOperand, at: Lookup): boolean {
  if (operand === null || typeof operand !== 'object') return at.found && at.value === operand;
  const entries = Object.entries(operand as Operators);
  return entries.length > 0 && entries.every(([op, arg]) => holdsOperator(op, arg, at));
}

/**
 * Whether every entry of the set holds for `data` (an event's data for triggers, the run
 * context for condition steps). A field that is absent is not equal to anything, matches
 * nothing and compares to nothing; `{"exists": false}` holds for it and so does `not`.
 */
export function evaluateConditions(set: ConditionSet, data: unknown): boolean {
  for (const [key, operand] of Object.entries(set)) {
    if (operand === undefined) continue;
    if (key === 'any' || key === 'all') {
      const sets = Array.isArray(operand) ? (operand as ConditionSet[]) : [];
      const ok = key === 'any' ? sets.some((s) => evaluateConditions(s, data)) : sets.every((s) => evaluateConditions(s, data));
      if (!ok) return false;
    } else if (!holdsOperand(operand as ConditionOperand, resolvePath(data, key))) {
      return false;
    }
  }
  return true;
}

/**
 * Every field path a condition set tests, `any`/`all` included: lets the catalog check
 * that a condition step's `steps.<id>` paths name existing steps.
 */
export function conditionPaths(set: unknown): string[] {
  const paths = new Set<string>();
  const walk = (s: unknown): void => {
    if (s === null || typeof s !== 'object' || Array.isArray(s)) return;
    for (const [key, value] of Object.entries(s)) {
      if ((key === 'any' || key === 'all') && Array.isArray(value)) value.forEach(walk);
      else paths.add(key);
    }
  };
  walk(set);
  return [...paths];
}
