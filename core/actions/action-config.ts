import type Joi from 'joi';
import type { FieldProblem } from '../errors.ts';
import { ASSET_VARIABLES, type ExecutorKind } from './action-kinds.ts';
import { configRuleFor, type ConfigRule } from './action-config-rules.ts';
import { urlProblem, type UrlRules } from './destination-url.ts';
import { inputMappingProblems } from './input-mapping.ts';
import { placeholdersOf } from './template-placeholders.ts';

/** A problem with the error code it should answer with (`validation_failed` when absent). */
export interface CodedProblem extends FieldProblem {
  code?: string;
}

export interface ConfigCheck {
  rule: ConfigRule | null;
  /** The config with the rule's defaults applied (when there are no problems). */
  config: Record<string, unknown>;
  problems: CodedProblem[];
}

function templateValues(config: Record<string, unknown>, path: string): Array<[string, string]> {
  if (path.endsWith('.*')) {
    const parent = config[path.slice(0, -2)];
    if (typeof parent !== 'object' || parent === null) return [];
    return Object.entries(parent as Record<string, unknown>).filter(([, v]) => typeof v === 'string').map(([k, v]) => [`${path.slice(0, -2)}.${k}`, v as string]);
  }
  const value = config[path];
  return typeof value === 'string' ? [[path, value]] : [];
}

/**
 * Checks an action's effective config against the rule of its (type, executor) pair
 * (action-config-rules.ts): the rule's schema, every `{{ name }}` naming a declared
 * parameter (or `target`/`asset_id`), outbound URLs (destination-url.ts) and a remote
 * `input_mapping`. `fieldOf` names a config path in the problems (a definition's
 * `target` is `executor.target`).
 */
export function checkActionConfig(
  type: string,
  executor: ExecutorKind,
  config: Record<string, unknown>,
  parameterNames: readonly string[],
  urlRules: UrlRules,
  fieldOf: (path: string) => string = (p) => `config.${p}`,
): ConfigCheck {
  const rule = configRuleFor(type, executor);
  if (!rule) {
    return { rule, config, problems: [{ field: 'executor', message: `the ${executor} executor cannot run actions of type ${type}`, code: 'executor_not_supported' }] };
  }
  const { value, error } = (rule.schema as Joi.ObjectSchema).validate(config, { abortEarly: false, convert: true });
  if (error) {
    return { rule, config, problems: error.details.map((d) => ({ field: fieldOf(d.path.join('.')), message: d.message.replace(/^"[^"]*" /, '') })) };
  }
  const checked = value as Record<string, unknown>;
  const problems: CodedProblem[] = [];
  const allowed = new Set<string>([...parameterNames, ...ASSET_VARIABLES]);
  for (const path of rule.templates) {
    for (const [field, template] of templateValues(checked, path)) {
      const { names, malformed } = placeholdersOf(template);
      for (const m of malformed) problems.push({ field: fieldOf(field), message: `${m} is not a placeholder: use {{ parameter_name }}`, code: 'invalid_placeholder' });
      for (const n of names) if (!allowed.has(n)) problems.push({ field: fieldOf(field), message: `{{ ${n} }} names no declared parameter`, code: 'unknown_placeholder' });
    }
  }
  for (const { field, templated } of rule.urls) {
    const raw = checked[field];
    if (typeof raw !== 'string') continue;
    const problem = urlProblem(raw, urlRules, templated);
    if (problem) problems.push({ field: fieldOf(field), message: problem.message, code: problem.code });
  }
  if (rule.name === 'remote' && checked.input_mapping !== undefined) {
    problems.push(...inputMappingProblems(checked.input_mapping, parameterNames).map((p) => ({ ...p, field: fieldOf(p.field) })));
  }
  return { rule, config: checked, problems };
}
