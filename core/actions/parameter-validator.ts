import { ValidationError, type FieldProblem } from '../errors.ts';
import type { ParameterSpec, ValidatedParameters } from './action-version.ts';
import { valueProblem } from './parameter-value.ts';

/**
 * Trigger-time check of the parameters sent for a run against the action's specs:
 * unknown names, missing required values, types, bounds and patterns (parameter-value.ts);
 * defaults fill absent values. A value sent for a `secret` parameter is refused: secrets
 * come only from the credential store, by the parameter's `credential` (or its own name).
 * `null` counts as a value (of the wrong type), not as absent. Throws ValidationError
 * with one detail per problem, `field: "parameters.<name>"`; nothing is run or written.
 */
export function validateParameters(specs: readonly ParameterSpec[], input: Record<string, unknown> | null | undefined): ValidatedParameters {
  const given = input ?? {};
  const problems: FieldProblem[] = [];
  const known = new Map(specs.map((s) => [s.name, s]));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) problems.push({ field: `parameters.${name}`, message: 'is not a parameter of this action' });
  }
  const values: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  for (const spec of specs) {
    const field = `parameters.${spec.name}`;
    const has = Object.prototype.hasOwnProperty.call(given, spec.name) && given[spec.name] !== undefined;
    if (spec.type === 'secret') {
      if (has) problems.push({ field, message: 'is a secret: its value comes from the credential store and cannot be sent' });
      secrets[spec.name] = spec.credential ?? spec.name;
      continue;
    }
    if (!has) {
      if (spec.default !== undefined) values[spec.name] = structuredClone(spec.default);
      else if (spec.required) problems.push({ field, message: 'is required' });
      continue;
    }
    const problem = valueProblem(spec, given[spec.name]);
    if (problem) problems.push({ field, message: problem });
    else values[spec.name] = structuredClone(given[spec.name]);
  }
  if (problems.length) throw new ValidationError('Invalid parameters.', problems);
  return { values, secrets };
}
