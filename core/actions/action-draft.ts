import { ValidationError } from '../errors.ts';
import { DEFAULT_RETRY, DEFAULT_TIMEOUT_SECONDS, DEFAULT_VERSION, type ExecutorKind } from './action-kinds.ts';
import { checkActionConfig, type CodedProblem } from './action-config.ts';
import type { ActionBehaviour, ExecutorRef, ParameterSpec } from './action-version.ts';
import type { UrlRules } from './destination-url.ts';
import { inputMappingProblems } from './input-mapping.ts';
import { validateParameterSpecs } from './parameter-specs.ts';
import { parseVersion, type VersionParts } from './semantic-version.ts';

export interface RetryInput {
  max_attempts: number;
  backoff_seconds: number;
}

/** `POST /api/actions` (reference view). */
export interface ReferenceActionInput {
  name: string;
  type: string;
  executor: ExecutorKind;
  description?: string;
  parameters?: ParameterSpec[];
  config?: Record<string, unknown>;
  version?: string;
  timeout_seconds?: number;
  retry?: RetryInput;
}

/** `POST /api/actions/definitions` and `…/{id}/versions` (authoring view). */
export interface DefinitionInput {
  name?: string;
  version: string;
  type: string;
  description?: string;
  parameters?: ParameterSpec[];
  executor: { type: 'local' | 'remote' | 'agent'; target?: string; method?: string };
  input_mapping?: Record<string, unknown> | null;
  timeout_seconds?: number;
  retry?: RetryInput;
  enabled?: boolean;
  config?: Record<string, unknown>;
}

/** One version, checked and normalised, ready to store. */
export interface VersionDraft extends ActionBehaviour {
  version: string;
  parts: VersionParts;
}

function fail(problems: CodedProblem[]): never {
  const codes = new Set(problems.map((p) => p.code ?? 'validation_failed'));
  const code = codes.size === 1 ? [...codes][0]! : 'validation_failed';
  throw new ValidationError(`Invalid action: ${problems[0]!.field} ${problems[0]!.message}.`, problems.map(({ field, message }) => ({ field, message })), code);
}

function specsOrProblems(specs: ParameterSpec[] | undefined, problems: CodedProblem[]): ParameterSpec[] {
  try {
    return validateParameterSpecs(specs ?? []);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    problems.push(...((err.extra.details as CodedProblem[]) ?? []));
    return specs ?? [];
  }
}

function versionParts(version: string, problems: CodedProblem[]): VersionParts {
  const parts = parseVersion(version);
  if (!parts) problems.push({ field: 'version', message: 'must be a semantic version MAJOR.MINOR.PATCH (e.g. 1.2.0)' });
  return parts ?? { major: 0, minor: 0, patch: 0 };
}

const retryOf = (r: RetryInput | undefined) => (r ? { maxAttempts: r.max_attempts, backoffSeconds: r.backoff_seconds } : { ...DEFAULT_RETRY });

/** Checks a reference-view action: the executor string, `config` by its (type, executor) rule. */
export function draftFromReference(input: ReferenceActionInput, urlRules: UrlRules): VersionDraft {
  const problems: CodedProblem[] = [];
  const version = input.version ?? DEFAULT_VERSION;
  const parts = versionParts(version, problems);
  const parameters = specsOrProblems(input.parameters, problems);
  const names = parameters.map((p) => p.name);
  const check = checkActionConfig(input.type, input.executor, input.config ?? {}, names, urlRules);
  problems.push(...check.problems);
  if (problems.length) fail(problems);
  const config = check.config;
  const executor: ExecutorRef = { type: input.executor };
  if (typeof config.target === 'string') executor.target = config.target;
  if (typeof config.method === 'string') executor.method = config.method;
  return {
    version,
    parts,
    type: input.type,
    description: input.description ?? '',
    executor,
    config,
    parameters,
    inputMapping: (config.input_mapping as Record<string, unknown> | undefined) ?? null,
    timeoutSeconds: input.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    retry: retryOf(input.retry),
  };
}

/**
 * Checks a definition: `executor.target`/`method` join `config` for the rule check (and
 * may not also be given in `config`); `method` applies to remote executors only;
 * `input_mapping` to remote only, every referenced parameter declared.
 */
export function draftFromDefinition(input: DefinitionInput, urlRules: UrlRules): VersionDraft {
  const problems: CodedProblem[] = [];
  const parts = versionParts(input.version, problems);
  const parameters = specsOrProblems(input.parameters, problems);
  const names = parameters.map((p) => p.name);
  const { type: kind, target, method } = input.executor;
  const config = { ...(input.config ?? {}) };
  for (const [key, value] of [['target', target], ['method', method]] as const) {
    if (value === undefined) continue;
    if (key in config) problems.push({ field: `config.${key}`, message: `is given as executor.${key}; give it once` });
    config[key] = value;
  }
  if (method !== undefined && kind !== 'remote') problems.push({ field: 'executor.method', message: 'applies to remote executors only' });
  const mapping = input.input_mapping ?? null;
  if ('input_mapping' in config) problems.push({ field: 'config.input_mapping', message: 'a definition gives input_mapping at the top level' });
  if (mapping !== null && kind !== 'remote') problems.push({ field: 'input_mapping', message: 'applies to remote executors only' });
  if (mapping !== null && kind === 'remote') problems.push(...inputMappingProblems(mapping, names));
  const fieldOf = (path: string) => (path === 'target' || path === 'method' ? `executor.${path}` : `config.${path}`);
  const check = checkActionConfig(input.type, kind, config, names, urlRules, fieldOf);
  problems.push(...check.problems);
  if (problems.length) fail(problems);
  const { target: t, method: m, ...rest } = check.config;
  const executor: ExecutorRef = { type: kind };
  if (typeof t === 'string') executor.target = t;
  if (typeof m === 'string') executor.method = m;
  return {
    version: input.version,
    parts,
    type: input.type,
    description: input.description ?? '',
    executor,
    config: rest,
    parameters,
    inputMapping: mapping,
    timeoutSeconds: input.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    retry: retryOf(input.retry),
  };
}
