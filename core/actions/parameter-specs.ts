import { ValidationError, type FieldProblem } from '../errors.ts';
import { ASSET_VARIABLES, CREDENTIAL_NAME_PATTERN, PARAMETER_NAME_PATTERN } from './action-kinds.ts';
import { PARAMETER_TYPES, type ParameterSpec } from './action-version.ts';
import { valueProblem } from './parameter-value.ts';
import { patternProblem } from './safe-pattern.ts';

export const MAX_PARAMETERS = 100;

/**
 * Registration-time check of an action's parameter list: unique identifier names (not
 * `target` or `asset_id`, which templates take from the asset), known types, `min` ≤
 * `max`, safe patterns (safe-pattern.ts), a default that itself passes the checks, and
 * no default or validation for `secret` parameters (their value lives in the credential
 * store). Returns the specs normalised (`required` false when absent); throws
 * ValidationError with one detail per problem (`parameters.<index>.<field>`).
 */
export function validateParameterSpecs(specs: readonly ParameterSpec[]): ParameterSpec[] {
  const problems: FieldProblem[] = [];
  const add = (i: number, field: string, message: string) => problems.push({ field: `parameters.${i}${field ? `.${field}` : ''}`, message });
  if (specs.length > MAX_PARAMETERS) problems.push({ field: 'parameters', message: `at most ${MAX_PARAMETERS} parameters` });
  const seen = new Set<string>();
  const out: ParameterSpec[] = [];
  specs.forEach((raw, i) => {
    const spec: ParameterSpec = { ...raw, required: raw.required ?? false };
    if (typeof spec.name !== 'string' || !PARAMETER_NAME_PATTERN.test(spec.name)) add(i, 'name', 'must be an identifier: a letter or _, then letters, digits or _, at most 64');
    else if ((ASSET_VARIABLES as readonly string[]).includes(spec.name)) add(i, 'name', `"${spec.name}" is reserved for the targeted asset`);
    else if (seen.has(spec.name)) add(i, 'name', `duplicate parameter name "${spec.name}"`);
    seen.add(spec.name);
    if (!(PARAMETER_TYPES as readonly string[]).includes(spec.type)) {
      add(i, 'type', `must be one of ${PARAMETER_TYPES.join(', ')}`);
      return;
    }
    const v = spec.validation;
    if (spec.type === 'secret') {
      if (spec.default !== undefined) add(i, 'default', 'a secret parameter cannot have a default (its value comes from the credential store)');
      if (v !== undefined) add(i, 'validation', 'a secret parameter cannot have validation rules');
      if (spec.credential !== undefined && !CREDENTIAL_NAME_PATTERN.test(spec.credential)) add(i, 'credential', 'must be a credential name: 1-100 of A-Z a-z 0-9 _ . -');
    } else if (spec.credential !== undefined) {
      add(i, 'credential', 'only secret parameters name a credential');
    }
    if (v) {
      if (v.pattern !== undefined && spec.type !== 'string' && spec.type !== 'string[]') add(i, 'validation.pattern', 'applies to string and string[] parameters only');
      if (v.pattern !== undefined) {
        const problem = patternProblem(v.pattern);
        if (problem) add(i, 'validation.pattern', problem);
      }
      if (spec.type === 'boolean' && (v.min !== undefined || v.max !== undefined)) add(i, 'validation', 'min and max do not apply to boolean parameters');
      for (const bound of ['min', 'max'] as const) {
        const b = v[bound];
        if (b !== undefined && (typeof b !== 'number' || !Number.isFinite(b))) add(i, `validation.${bound}`, 'must be a number');
        else if (b !== undefined && spec.type !== 'number' && (!Number.isSafeInteger(b) || b < 0)) add(i, `validation.${bound}`, 'must be a whole number of at least 0 (a length)');
      }
      if (typeof v.min === 'number' && typeof v.max === 'number' && v.min > v.max) add(i, 'validation', 'min must not be greater than max');
    }
    if (spec.default !== undefined && spec.type !== 'secret' && !problems.some((p) => p.field.startsWith(`parameters.${i}.validation`))) {
      const problem = valueProblem(spec, spec.default);
      if (problem) add(i, 'default', `the default ${problem}`);
    }
    out.push(spec);
  });
  if (problems.length) throw new ValidationError('Invalid parameters.', problems);
  return out;
}
