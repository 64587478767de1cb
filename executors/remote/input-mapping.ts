/**
 * The remote executor's `input_mapping`: which parameters are sent, under which names,
 * and constants. Shape:
 *   { fields: { <sent_name>: "<param>" | { param: "<param>" } | { value: <JSON constant> } },
 *     include_unmapped?: boolean }   // default false
 * Without a mapping every parameter is sent under its own name. With one, only the
 * mapped fields are sent, plus (with `include_unmapped`) every parameter no field reads,
 * under its own name. A mapped parameter that has no value in the run is left out.
 */
import { ConfigError } from '../_lib/config-error.ts';

type FieldSource = string | { param: string } | { value: unknown };

export interface InputMapping {
  fields: Record<string, FieldSource>;
  include_unmapped?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with a mapping's shape (empty when it is usable). */
export function inputMappingProblems(mapping: unknown): string[] {
  if (mapping === null || mapping === undefined) return [];
  if (!isObject(mapping)) return ['input_mapping must be an object'];
  const problems: string[] = [];
  for (const key of Object.keys(mapping)) if (key !== 'fields' && key !== 'include_unmapped') problems.push(`input_mapping.${key} is not allowed`);
  if (mapping.include_unmapped !== undefined && typeof mapping.include_unmapped !== 'boolean') problems.push('input_mapping.include_unmapped must be a boolean');
  if (!isObject(mapping.fields)) return [...problems, 'input_mapping.fields must be an object'];
  for (const [name, source] of Object.entries(mapping.fields)) {
    const ok =
      (typeof source === 'string' && source !== '') ||
      (isObject(source) && Object.keys(source).length === 1 && ((typeof source.param === 'string' && source.param !== '') || Object.hasOwn(source, 'value')));
    if (!ok) problems.push(`input_mapping.fields.${name} must be a parameter name, {param: name} or {value: constant}`);
  }
  return problems;
}

/** Names of the parameters a mapping reads (for registration checks). */
export function mappedParams(mapping: InputMapping): string[] {
  return Object.values(mapping.fields).flatMap((s) => (typeof s === 'string' ? [s] : 'param' in s ? [s.param] : []));
}

/**
 * The JSON body for a run. `vars` are the template variables (parameters plus `target`
 * and `asset_id`), so a field may also send the targeted asset.
 */
export function shapeRequestBody(mapping: unknown, params: Readonly<Record<string, unknown>>, vars: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (mapping === null || mapping === undefined) return { ...params };
  const problems = inputMappingProblems(mapping);
  if (problems.length) throw new ConfigError(problems.join('; '));
  const m = mapping as InputMapping;
  const body: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(m.fields)) {
    if (typeof source === 'object' && 'value' in source) {
      body[name] = source.value;
      continue;
    }
    const param = typeof source === 'string' ? source : source.param;
    if (Object.hasOwn(vars, param) && vars[param] !== undefined) body[name] = vars[param];
  }
  if (m.include_unmapped) {
    const used = new Set(mappedParams(m));
    for (const [name, value] of Object.entries(params)) if (!used.has(name) && !Object.hasOwn(body, name)) body[name] = value;
  }
  return body;
}
