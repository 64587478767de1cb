import { toIsoRequired } from '../time.ts';
import type { ActionWithVersion, VersionRecord } from './action-repository.ts';
import type { ParameterSpec } from './action-version.ts';

/** A parameter as the API shows it: snake_case as sent, optional fields only when set. */
function parameterView(p: ParameterSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { name: p.name, type: p.type, required: p.required };
  if (p.default !== undefined) out.default = p.default;
  if (p.validation !== undefined) out.validation = p.validation;
  if (p.credential !== undefined) out.credential = p.credential;
  if (p.description !== undefined) out.description = p.description;
  return out;
}

function behaviourView(v: VersionRecord) {
  return {
    type: v.type,
    description: v.description,
    version: v.version,
    executor: v.executor.type,
    executor_detail: { type: v.executor.type, target: v.executor.target ?? null, method: v.executor.method ?? null },
    parameters: v.parameters.map(parameterView),
    config: v.config,
    input_mapping: v.inputMapping,
    timeout_seconds: v.timeoutSeconds,
    retry: { max_attempts: v.retry.maxAttempts, backoff_seconds: v.retry.backoffSeconds },
  };
}

/** The reference view of an action of either view: its fields and those of its active version. */
export function actionView({ action, version }: ActionWithVersion) {
  return {
    id: action.id,
    name: action.name,
    ...behaviourView(version),
    enabled: action.view === 'reference' || action.enabled,
    view: action.view,
    created_at: toIsoRequired(action.createdAt),
    updated_at: toIsoRequired(action.updatedAt),
  };
}

/** `POST /api/actions`'s answer (the spec's fields). */
export function createdView({ action, version }: ActionWithVersion) {
  return { id: action.id, name: action.name, type: version.type, executor: version.executor.type, version: version.version, created_at: toIsoRequired(action.createdAt) };
}

/** One registered version, and whether it is the active one. */
export function versionView(v: VersionRecord, activeVersionId: string) {
  return { id: v.id, ...behaviourView(v), active: v.id === activeVersionId, created_at: toIsoRequired(v.createdAt) };
}
