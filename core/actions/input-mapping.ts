import type { FieldProblem } from '../errors.ts';

/**
 * A remote executor's `input_mapping`: which parameters are sent, under which names,
 * plus constants. `{ fields: { <sent_name>: "<param>" | { param: "<param>" } | { value: <JSON> } },
 * include_unmapped?: boolean }`. Without a mapping every parameter is sent under its own
 * name; with one, only the mapped fields are sent, and `include_unmapped: true` adds the
 * parameters no field names, under their own names. The remote executor applies it.
 */
export interface InputMapping {
  fields: Record<string, string | { param: string } | { value: unknown }>;
  include_unmapped?: boolean;
}

const MAX_FIELDS = 200;
const MAX_CONSTANT = 65_536;

/** Problems of a mapping against the declared parameter names (`input_mapping.…` fields). */
export function inputMappingProblems(mapping: unknown, parameterNames: readonly string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, message: string) => problems.push({ field: `input_mapping${field}`, message });
  if (typeof mapping !== 'object' || mapping === null || Array.isArray(mapping)) return [{ field: 'input_mapping', message: 'must be an object {fields, include_unmapped?}' }];
  const m = mapping as Record<string, unknown>;
  for (const key of Object.keys(m)) if (key !== 'fields' && key !== 'include_unmapped') add(`.${key}`, 'is not allowed (fields, include_unmapped)');
  if (m.include_unmapped !== undefined && typeof m.include_unmapped !== 'boolean') add('.include_unmapped', 'must be a boolean');
  const fields = m.fields;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
    add('.fields', 'is required: an object of sent name to "<param>", {param} or {value}');
    return problems;
  }
  const entries = Object.entries(fields as Record<string, unknown>);
  if (entries.length > MAX_FIELDS) add('.fields', `at most ${MAX_FIELDS} fields`);
  for (const [sent, spec] of entries) {
    const field = `.fields.${sent}`;
    if (!sent.length || sent.length > 200 || /[\x00-\x1f]/.test(sent)) add(field, 'a sent name is 1-200 characters without control characters');
    const param = typeof spec === 'string' ? spec : isObject(spec) && Object.keys(spec).length === 1 && typeof spec.param === 'string' ? spec.param : undefined;
    if (param !== undefined) {
      if (!parameterNames.includes(param)) add(field, `names "${param}", which is not a declared parameter`);
    } else if (isObject(spec) && Object.keys(spec).length === 1 && 'value' in spec) {
      if (JSON.stringify(spec.value ?? null).length > MAX_CONSTANT) add(field, `a constant is at most ${MAX_CONSTANT} bytes of JSON`);
    } else {
      add(field, 'must be "<param>", {"param": "<param>"} or {"value": <constant>}');
    }
  }
  return problems;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
