import { toIsoRequired } from '../../time.ts';
import type { PlaybookVersion } from '../playbook-types.ts';
import type { PlaybookVersionRecord, PlaybookWithVersion } from './playbook-repository.ts';

/** The definition's own fields in the order the API shows them. */
function definitionView(v: PlaybookVersionRecord) {
  const d = v.definition;
  return {
    name: d.name,
    version: d.version,
    description: d.description,
    trigger: d.trigger,
    steps: d.steps,
    on_failure: d.on_failure,
    timeout_minutes: d.timeout_minutes,
    tags: d.tags,
    parameters: d.parameters,
  };
}

/** `GET /api/playbooks/{id}`: the full definition of the active version. */
export function playbookView({ playbook, version }: PlaybookWithVersion) {
  return {
    id: playbook.id,
    ...definitionView(version),
    enabled: playbook.enabled,
    step_count: version.stepCount,
    created_at: toIsoRequired(playbook.createdAt),
    updated_at: toIsoRequired(playbook.updatedAt),
  };
}

/** One item of `GET /api/playbooks`: the spec's fields, and `enabled`. */
export function playbookListItem({ playbook, version }: PlaybookWithVersion) {
  const d = version.definition;
  return {
    id: playbook.id,
    name: d.name,
    version: d.version,
    description: d.description,
    trigger: d.trigger,
    step_count: version.stepCount,
    tags: d.tags,
    enabled: playbook.enabled,
    created_at: toIsoRequired(playbook.createdAt),
    updated_at: toIsoRequired(playbook.updatedAt),
  };
}

/** 201 of `POST /api/playbooks`. */
export function playbookCreatedView({ playbook, version }: PlaybookWithVersion) {
  return { id: playbook.id, name: playbook.name, version: version.version, step_count: version.stepCount, created_at: toIsoRequired(playbook.createdAt) };
}

/** One item of `GET /api/playbooks/{id}/versions`: the whole definition of that version. */
export function playbookVersionView(v: PlaybookVersionRecord, activeVersionId: string) {
  return { id: v.id, ...definitionView(v), step_count: v.stepCount, active: v.id === activeVersionId, created_at: toIsoRequired(v.createdAt) };
}

/** What the run engine and triggers read. */
export function toPlaybookVersion({ playbook, version }: PlaybookWithVersion): PlaybookVersion {
  return { ...version.definition, playbookId: playbook.id, tenantId: playbook.tenantId, versionId: version.id, enabled: playbook.enabled && playbook.deletedAt === null };
}
