import { parseVersion, compareVersions } from '../../actions/semantic-version.ts';
import { changeClock } from '../../db/change-clock.ts';
import type { Db } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import { retryOnDeadlock } from '../../db/retry-deadlock.ts';
import type { Page, PageRequest } from '../../db/paginate.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { PlaybookDefinition, PlaybookVersion } from '../playbook-types.ts';
import type { ActionLookup } from './action-ref.ts';
import { checkActionRefs, checkLanguage } from './playbook-checks.ts';
import { playbookRepository, type PlaybookFilter, type PlaybookVersionRecord, type PlaybookWithVersion } from './playbook-repository.ts';
import { createDefinitionSchema, newVersionSchema, shapeOf } from './playbook-shape.ts';
import { toPlaybookVersion } from './playbook-views.ts';

const taken = (name: string) => new ConflictError(`A playbook named "${name}" already exists in this tenant.`, 'playbook_exists');

/**
 * Playbook definitions and their immutable versions. Every input is checked in full —
 * shape, the language (graph, conditions, placeholders), then every action_ref in the
 * tenant — before anything is written. A created playbook is enabled (live: triggered by
 * its event) until PATCHed off. The run engine and triggers read through `forRun`,
 * `enabledForEvent` and `byVersionId`.
 */
export class PlaybookCatalog {
  readonly #db: Db;
  readonly #actions: ActionLookup;

  constructor(db: Db, actions: ActionLookup) {
    this.#db = db;
    this.#actions = actions;
  }

  /**
   * Every check of a creation (the name still free included), nothing written: the definition with defaults filled in.
   * `knownActionRefs` count as resolving (actions a CACAO import would create).
   */
  async check(tenantId: string, input: unknown, options: { knownActionRefs?: Iterable<string> } = {}): Promise<PlaybookDefinition> {
    const def = shapeOf(createDefinitionSchema, input);
    checkLanguage(def);
    await checkActionRefs(this.#actions, tenantId, def, new Set(options.knownActionRefs ?? []));
    // Checked here too, not only in create's transaction: a CACAO dry run must say what the
    // import would answer, and an import must not create its actions for a name that is taken.
    if (await playbookRepository.nameTaken(this.#db, tenantId, def.name)) throw taken(def.name);
    return def;
  }

  async create(tenantId: string, input: unknown, createdBy: string | null): Promise<PlaybookWithVersion> {
    const def = await this.check(tenantId, input);
    const id = newId('pbk');
    const versionId = newId('ver');
    const now = Date.now();
    try {
      await retryOnDeadlock(() => this.#db.transaction(async (trx) => {
        if (await playbookRepository.nameTaken(trx, tenantId, def.name)) throw taken(def.name);
        await playbookRepository.insertPlaybook(trx, { id, tenantId, name: def.name, enabled: true, activeVersionId: versionId, createdBy, createdAt: now, updatedAt: now });
        await playbookRepository.insertVersion(trx, this.#record(versionId, id, tenantId, def, createdBy, now), parseVersion(def.version)!);
        await playbookRepository.setTags(trx, tenantId, id, def.tags, true);
        await changeClock.markChanged(trx, tenantId, 'playbooks', now);
      }));
    } catch (err) {
      if (isUniqueViolation(err)) throw taken(def.name);
      throw err;
    }
    return this.get(tenantId, id);
  }

  async get(tenantId: string, id: string): Promise<PlaybookWithVersion> {
    const found = await playbookRepository.findById(this.#db, tenantId, id);
    if (!found) throw new NotFoundError('Playbook');
    return found;
  }

  list(tenantId: string, filter: PlaybookFilter, page: PageRequest): Promise<Page<PlaybookWithVersion>> {
    return playbookRepository.list(this.#db, tenantId, filter, page);
  }

  listChangedAt(tenantId: string): Promise<number | null> {
    return changeClock.lastChanged(this.#db, tenantId, 'playbooks');
  }

  /**
   * PUT: a full definition with a version higher than every registered one (409
   * `version_not_higher` otherwise); it becomes the active version. `name` left out
   * keeps the playbook's; a new name renames it (409 `playbook_exists` if taken).
   * `enabled` is not part of a version and is kept.
   */
  async addVersion(tenantId: string, id: string, input: unknown, createdBy: string | null): Promise<PlaybookWithVersion> {
    const current = await this.get(tenantId, id);
    const def = shapeOf(newVersionSchema, input, current.playbook.name);
    checkLanguage(def);
    await checkActionRefs(this.#actions, tenantId, def);
    const parts = parseVersion(def.version)!;
    const versionId = newId('ver');
    const now = Date.now();
    const notHigher = (newest: string) => new ConflictError(`Version ${def.version} is not higher than ${newest}, the newest version of this playbook.`, 'version_not_higher', { newest_version: newest });
    try {
      await retryOnDeadlock(() => this.#db.transaction(async (trx) => {
        const newest = await playbookRepository.newestVersion(trx, tenantId, id);
        if (newest && compareVersions(parts, newest.parts) <= 0) throw notHigher(newest.version);
        if (def.name !== current.playbook.name && (await playbookRepository.nameTaken(trx, tenantId, def.name, id))) throw taken(def.name);
        await playbookRepository.insertVersion(trx, this.#record(versionId, id, tenantId, def, createdBy, now), parts);
        const updated = await playbookRepository.update(trx, tenantId, id, { name: def.name, activeVersionId: versionId, updatedAt: now });
        if (!updated) throw new NotFoundError('Playbook');
        await playbookRepository.setTags(trx, tenantId, id, def.tags);
        await changeClock.markChanged(trx, tenantId, 'playbooks', now);
      }));
    } catch (err) {
      if (isUniqueViolation(err)) {
        const newest = await playbookRepository.newestVersion(this.#db, tenantId, id);
        if (newest && compareVersions(parts, newest.parts) <= 0) throw notHigher(newest.version);
        throw taken(def.name);
      }
      throw err;
    }
    return this.get(tenantId, id);
  }

  /** Every version, newest (highest) first; `activeVersionId` marks the one runs use. */
  async versions(tenantId: string, id: string, page: PageRequest): Promise<{ activeVersionId: string; page: Page<PlaybookVersionRecord> }> {
    const current = await this.get(tenantId, id);
    return { activeVersionId: current.playbook.activeVersionId, page: await playbookRepository.versions(this.#db, tenantId, id, page) };
  }

  /** PATCH `{enabled}`: a disabled playbook is never triggered by events (runs by hand are the engine's call). */
  async setEnabled(tenantId: string, id: string, enabled: boolean): Promise<PlaybookWithVersion> {
    const now = Date.now();
    await retryOnDeadlock(() => this.#db.transaction(async (trx) => {
      if (!(await playbookRepository.update(trx, tenantId, id, { enabled, updatedAt: now }))) throw new NotFoundError('Playbook');
      await changeClock.markChanged(trx, tenantId, 'playbooks', now);
    }));
    return this.get(tenantId, id);
  }

  /**
   * DELETE: the playbook leaves lists, GET and triggers, and its name is free again. Its
   * versions stay, so runs (which hold their version id) keep their record and
   * `byVersionId` still answers.
   */
  async remove(tenantId: string, id: string): Promise<void> {
    const now = Date.now();
    await retryOnDeadlock(() => this.#db.transaction(async (trx) => {
      if (!(await playbookRepository.markDeleted(trx, tenantId, id, now))) throw new NotFoundError('Playbook');
      await changeClock.markChanged(trx, tenantId, 'playbooks', now);
    }));
  }

  /** For runs: the active version of a live playbook (enabled or not). NotFoundError when absent, deleted or another tenant's. */
  async forRun(tenantId: string, playbookId: string): Promise<PlaybookVersion> {
    return toPlaybookVersion(await this.get(tenantId, playbookId));
  }

  /** For triggers: the enabled, live playbooks whose active version listens to this event kind, oldest first. */
  async enabledForEvent(tenantId: string, eventKind: string): Promise<PlaybookVersion[]> {
    return (await playbookRepository.enabledForEvent(this.#db, tenantId, eventKind)).map(toPlaybookVersion);
  }

  /** One version by id, also of a deleted playbook (then `enabled` is false). NotFoundError when absent or another tenant's. */
  async byVersionId(tenantId: string, versionId: string): Promise<PlaybookVersion> {
    const found = await playbookRepository.findVersion(this.#db, tenantId, versionId);
    if (!found) throw new NotFoundError('Playbook version');
    return toPlaybookVersion(found);
  }

  #record(id: string, playbookId: string, tenantId: string, definition: PlaybookDefinition, createdBy: string | null, now: number): PlaybookVersionRecord {
    return { id, playbookId, tenantId, version: definition.version, stepCount: definition.steps.length, definition, createdBy, createdAt: now };
  }
}
