import type { ParameterSpec } from './action-version.ts';

/** Longest string (and string[] item) a parameter takes: keeps pattern matching bounded. */
export const MAX_STRING_LENGTH = 4096;
/** Most items in a `string[]` parameter. */
export const MAX_ARRAY_ITEMS = 1000;

const compiled = new Map<string, RegExp>();

/** The pattern as a full match (`^(?:p)$`), compiled once. Registration has already refused unsafe ones. */
function fullMatch(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    re = new RegExp(`^(?:${pattern})$`);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

function typeProblem(spec: ParameterSpec, value: unknown): string | null {
  switch (spec.type) {
    case 'string':
      return typeof value === 'string' ? null : 'must be a string';
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? null : 'must be an integer';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? null : 'must be an array of strings';
    case 'secret':
      return 'takes its value from the credential store';
    default:
      return 'has an unknown type';
  }
}

/**
 * Why a value does not satisfy its parameter's spec, or null. `min`/`max` bound the
 * value of `integer` and `number`, the length of `string`, and the item count of
 * `string[]`; `pattern` must match a whole `string`, or every item of a `string[]`.
 */
export function valueProblem(spec: ParameterSpec, value: unknown): string | null {
  const wrongType = typeProblem(spec, value);
  if (wrongType) return wrongType;
  const { pattern, min, max } = spec.validation ?? {};
  if (typeof value === 'number') {
    if (min !== undefined && value < min) return `must be at least ${min}`;
    if (max !== undefined && value > max) return `must be at most ${max}`;
    return null;
  }
  const strings = typeof value === 'string' ? [value] : Array.isArray(value) ? (value as string[]) : [];
  if (Array.isArray(value) && value.length > MAX_ARRAY_ITEMS) return `must have at most ${MAX_ARRAY_ITEMS} items`;
  if (strings.some((s) => s.length > MAX_STRING_LENGTH)) return `must be at most ${MAX_STRING_LENGTH} characters`;
  const size = typeof value === 'string' ? value.length : Array.isArray(value) ? value.length : 0;
  const unit = typeof value === 'string' ? 'characters' : 'items';
  if ((typeof value === 'string' || Array.isArray(value)) && min !== undefined && size < min) return `must have at least ${min} ${unit}`;
  if ((typeof value === 'string' || Array.isArray(value)) && max !== undefined && size > max) return `must have at most ${max} ${unit}`;
  if (pattern !== undefined && strings.some((s) => !fullMatch(pattern).test(s))) {
    return Array.isArray(value) ? 'has an item that does not match the pattern' : 'does not match the pattern';
  }
  return null;
}
