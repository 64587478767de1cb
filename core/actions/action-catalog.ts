import { changeClock } from '../db/change-clock.ts';
import type { Db, Queryable } from '../db/create-db.ts';
import { isUniqueViolation } from '../db/db-errors.ts';
import type { Page, PageRequest } from '../db/paginate.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { draftFromDefinition, draftFromReference, type DefinitionInput, type ReferenceActionInput, type VersionDraft } from './action-draft.ts';
import { actionRepository, type ActionFilter, type ActionWithVersion, type VersionRecord } from './action-repository.ts';
import type { ActionVersion } from './action-version.ts';
import type { UrlRules } from './destination-url.ts';
import { compareVersions } from './semantic-version.ts';

export interface ActionPatch {
  enabled?: boolean;
  active_version?: string;
}

function toActionVersion({ action, version }: { action: ActionWithVersion['action']; version: VersionRecord }): ActionVersion {
  return {
    actionId: action.id,
    tenantId: action.tenantId,
    name: action.name,
    view: action.view,
    enabled: action.view === 'reference' || action.enabled,
    versionId: version.id,
    version: version.version,
    type: version.type,
    description: version.description,
    executor: version.executor,
    config: version.config,
    parameters: version.parameters,
    inputMapping: version.inputMapping,
    timeoutSeconds: version.timeoutSeconds,
    retry: version.retry,
  };
}

/**
 * The action catalog: both views (reference `POST /api/actions`, authoring
 * `POST /api/actions/definitions`) create one kind of record, an action pointing at its
 * active immutable version. Every input is checked in full (action-draft.ts) before
 * anything is written. The run engine reads actions only through `forRun*`/`findByName`.
 */
export class ActionCatalog {
  readonly #db: Db;
  readonly #urlRules: UrlRules;

  constructor(db: Db, urlRules: UrlRules) {
    this.#db = db;
    this.#urlRules = urlRules;
  }

  /** A reference-view action: usable at once (enabled). */
  createReference(tenantId: string, input: ReferenceActionInput, createdBy: string | null): Promise<ActionWithVersion> {
    return this.#create(tenantId, input.name, 'reference', true, draftFromReference(input, this.#urlRules), createdBy);
  }

  /** A definition (authoring view): usable in production once enabled (default false). */
  register(tenantId: string, input: DefinitionInput & { name: string }, createdBy: string | null): Promise<ActionWithVersion> {
    return this.#create(tenantId, input.name, 'definition', input.enabled ?? false, draftFromDefinition(input, this.#urlRules), createdBy);
  }

  async #create(tenantId: string, name: string, view: 'reference' | 'definition', enabled: boolean, draft: VersionDraft, createdBy: string | null): Promise<ActionWithVersion> {
    const id = newId('act');
    const versionId = newId('ver');
    const now = Date.now();
    const taken = () => new ConflictError(`An action named "${name}" already exists in this tenant.`, 'action_exists');
    try {
      await this.#db.transaction(async (trx) => {
        if (await actionRepository.nameTaken(trx, tenantId, name)) throw taken();
        await actionRepository.insertAction(trx, { id, tenantId, name, view, enabled, activeVersionId: versionId, createdBy, createdAt: now, updatedAt: now });
        await actionRepository.insertVersion(trx, versionId, id, tenantId, draft, createdBy, now);
        await changeClock.markChanged(trx, tenantId, 'actions', now);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw taken();
      throw err;
    }
    return this.get(tenantId, id);
  }

  async get(tenantId: string, id: string): Promise<ActionWithVersion> {
    const found = await actionRepository.findById(this.#db, tenantId, id);
    if (!found) throw new NotFoundError('Action');
    return found;
  }

  list(tenantId: string, filter: ActionFilter, page: PageRequest): Promise<Page<ActionWithVersion>> {
    return actionRepository.list(this.#db, tenantId, filter, page);
  }

  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'actions');
  }

  async #definition(db: Queryable, tenantId: string, id: string): Promise<ActionWithVersion> {
    const found = await actionRepository.findById(db, tenantId, id);
    if (!found) throw new NotFoundError('Action');
    if (found.action.view !== 'definition') {
      throw new ConflictError('This action was created with POST /api/actions (reference view); versions and PATCH apply to definitions.', 'not_a_definition');
    }
    return found;
  }

  /**
   * Registers a higher version of a definition, which becomes the active one (PATCH
   * `active_version` goes back). `name`, when given, must be the action's.
   */
  async addVersion(tenantId: string, id: string, input: DefinitionInput, createdBy: string | null): Promise<{ action: ActionWithVersion; version: VersionRecord }> {
    const current = await this.#definition(this.#db, tenantId, id);
    if (input.name !== undefined && input.name !== current.action.name) {
      throw new ValidationError('The name of a version must be the action\'s name (or omitted).', [{ field: 'name', message: `must be "${current.action.name}" or omitted` }]);
    }
    const draft = draftFromDefinition(input, this.#urlRules);
    const versionId = newId('ver');
    const now = Date.now();
    const notHigher = (newest: string) => new ConflictError(`Version ${draft.version} is not higher than ${newest}, the newest registered version.`, 'version_not_higher', { newest_version: newest });
    try {
      await this.#db.transaction(async (trx) => {
        const newest = await actionRepository.newestVersion(trx, tenantId, id);
        if (newest && compareVersions(draft.parts, newest) <= 0) throw notHigher(newest.version);
        await actionRepository.insertVersion(trx, versionId, id, tenantId, draft, createdBy, now);
        const changes: { activeVersionId: string; updatedAt: number; enabled?: boolean } = { activeVersionId: versionId, updatedAt: now };
        if (input.enabled !== undefined) changes.enabled = input.enabled;
        await actionRepository.update(trx, tenantId, id, changes);
        await changeClock.markChanged(trx, tenantId, 'actions', now);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw notHigher(draft.version);
      throw err;
    }
    const action = await this.get(tenantId, id);
    return { action, version: action.version };
  }

  /** Every version of an action (either view), newest first. */
  async versions(tenantId: string, id: string, page: PageRequest): Promise<{ action: ActionWithVersion; page: Page<VersionRecord> }> {
    const action = await this.get(tenantId, id);
    return { action, page: await actionRepository.versions(this.#db, tenantId, id, page) };
  }

  /** Enables/disables a definition and/or moves its active version to a registered one. */
  async patch(tenantId: string, id: string, patch: ActionPatch): Promise<ActionWithVersion> {
    const now = Date.now();
    await this.#db.transaction(async (trx) => {
      await this.#definition(trx, tenantId, id);
      const changes: { enabled?: boolean; activeVersionId?: string; updatedAt: number } = { updatedAt: now };
      if (patch.enabled !== undefined) changes.enabled = patch.enabled;
      if (patch.active_version !== undefined) {
        const target = await actionRepository.findVersion(trx, tenantId, id, patch.active_version);
        if (!target) {
          throw new ValidationError(`Version ${patch.active_version} is not registered for this action.`, [{ field: 'active_version', message: `${patch.active_version} is not a registered version` }], 'unknown_version');
        }
        changes.activeVersionId = target.id;
      }
      await actionRepository.update(trx, tenantId, id, changes);
      await changeClock.markChanged(trx, tenantId, 'actions', now);
    });
    return this.get(tenantId, id);
  }

  /** For the run engine: the active version. NotFoundError when absent or another tenant's. */
  async forRun(tenantId: string, actionId: string): Promise<ActionVersion> {
    return toActionVersion(await this.get(tenantId, actionId));
  }

  /** For pinned references (playbook steps): one registered version. NotFoundError when absent. */
  async forRunByVersion(tenantId: string, actionId: string, version: string): Promise<ActionVersion> {
    const found = await this.get(tenantId, actionId);
    const pinned = await actionRepository.findVersion(this.#db, tenantId, actionId, version);
    if (!pinned) throw new NotFoundError(`Version ${version} of the action`);
    return toActionVersion({ action: found.action, version: pinned });
  }

  /** The active version of the tenant's action with this exact name, or null. */
  async findByName(tenantId: string, name: string): Promise<ActionVersion | null> {
    const found = await actionRepository.findByName(this.#db, tenantId, name);
    return found ? toActionVersion(found) : null;
  }
}
