import type { Knex } from 'knex';
import type { Queryable } from '../../db/create-db.ts';
import { fromJson, toJson } from '../../db/json.ts';
import { whereContains } from '../../db/like-pattern.ts';
import { paginate, type Page, type PageRequest } from '../../db/paginate.ts';
import type { VersionParts } from '../../actions/semantic-version.ts';
import type { PlaybookDefinition } from '../playbook-types.ts';
import { insertBatched } from '../../db/insert-batches.ts';

export interface PlaybookRecord {
  id: string;
  tenantId: string;
  name: string;
  enabled: boolean;
  activeVersionId: string;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

export interface PlaybookVersionRecord {
  id: string;
  playbookId: string;
  tenantId: string;
  version: string;
  stepCount: number;
  definition: PlaybookDefinition;
  createdBy: string | null;
  createdAt: number;
}

/** A playbook with its active version. */
export interface PlaybookWithVersion {
  playbook: PlaybookRecord;
  version: PlaybookVersionRecord;
}

export interface PlaybookFilter {
  search?: string;
  tag?: string;
}

type Row = Record<string, any>;

function toPlaybook(r: Row): PlaybookRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    enabled: Boolean(r.enabled),
    activeVersionId: r.active_version_id,
    createdBy: r.created_by ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    deletedAt: r.deleted_at === null || r.deleted_at === undefined ? null : Number(r.deleted_at),
  };
}

function toVersion(r: Row, prefix = ''): PlaybookVersionRecord {
  const c = (name: string) => r[`${prefix}${name}`];
  return {
    id: c('id'),
    playbookId: c('playbook_id'),
    tenantId: c('tenant_id'),
    version: c('version'),
    stepCount: Number(c('step_count')),
    definition: fromJson<PlaybookDefinition>(c('definition'), null as unknown as PlaybookDefinition),
    createdBy: c('created_by') ?? null,
    createdAt: Number(c('created_at')),
  };
}

const VERSION_COLUMNS = ['id', 'playbook_id', 'tenant_id', 'version', 'step_count', 'definition', 'created_by', 'created_at'];
const NEWEST_FIRST = [{ column: 'major', order: 'desc' }, { column: 'minor', order: 'desc' }, { column: 'patch', order: 'desc' }];

/** Live (not deleted) playbooks of the tenant joined to their active version (`v_<column>`). */
function joined(db: Queryable, tenantId: string): Knex.QueryBuilder {
  return db('playbooks')
    .join('playbook_versions as v', 'v.id', 'playbooks.active_version_id')
    .where('playbooks.tenant_id', tenantId)
    .whereNull('playbooks.deleted_at')
    .select('playbooks.*', ...VERSION_COLUMNS.map((c) => `v.${c} as v_${c}`));
}

const withVersion = (r: Row): PlaybookWithVersion => ({ playbook: toPlaybook(r), version: toVersion(r, 'v_') });

export const playbookRepository = {
  async insertPlaybook(db: Queryable, p: Omit<PlaybookRecord, 'deletedAt'>): Promise<void> {
    await db('playbooks').insert({
      id: p.id, tenant_id: p.tenantId, name: p.name, live_name: p.name, enabled: p.enabled, active_version_id: p.activeVersionId,
      created_by: p.createdBy, created_at: p.createdAt, updated_at: p.updatedAt, deleted_at: null,
    });
  },

  async insertVersion(db: Queryable, v: PlaybookVersionRecord, parts: VersionParts): Promise<void> {
    await db('playbook_versions').insert({
      id: v.id, playbook_id: v.playbookId, tenant_id: v.tenantId, version: v.version, major: parts.major, minor: parts.minor, patch: parts.patch,
      description: v.definition.description, trigger_event: v.definition.trigger.event, step_count: v.stepCount,
      definition: toJson(v.definition), created_by: v.createdBy, created_at: v.createdAt,
    });
  },

  /** Replaces the tag rows with the active version's tags (`fresh`: a new playbook has none to delete, and an empty-range delete takes gap locks on MariaDB). */
  async setTags(db: Queryable, tenantId: string, playbookId: string, tags: string[], fresh = false): Promise<void> {
    if (!fresh) await db('playbook_tags').where({ playbook_id: playbookId }).delete();
    await insertBatched(db, 'playbook_tags', tags.map((tag) => ({ playbook_id: playbookId, tenant_id: tenantId, tag })));
  },

  async update(db: Queryable, tenantId: string, id: string, changes: { name?: string; enabled?: boolean; activeVersionId?: string; updatedAt: number }): Promise<number> {
    const cols: Row = { updated_at: changes.updatedAt };
    if (changes.name !== undefined) Object.assign(cols, { name: changes.name, live_name: changes.name });
    if (changes.enabled !== undefined) cols.enabled = changes.enabled;
    if (changes.activeVersionId !== undefined) cols.active_version_id = changes.activeVersionId;
    return db('playbooks').where({ tenant_id: tenantId, id }).whereNull('deleted_at').update(cols);
  },

  /** Soft delete: frees the name, leaves lists and triggers; versions stay for runs. */
  async markDeleted(db: Queryable, tenantId: string, id: string, now: number): Promise<number> {
    const n = await db('playbooks').where({ tenant_id: tenantId, id }).whereNull('deleted_at').update({ deleted_at: now, updated_at: now, live_name: null });
    if (n) await db('playbook_tags').where({ playbook_id: id }).delete();
    return n;
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<PlaybookWithVersion | null> {
    const row = (await joined(db, tenantId).where('playbooks.id', id).first()) as Row | undefined;
    return row ? withVersion(row) : null;
  },

  /** Whether another live playbook of the tenant has this name. */
  async nameTaken(db: Queryable, tenantId: string, name: string, exceptId: string | null = null): Promise<boolean> {
    const q = db('playbooks').where({ tenant_id: tenantId, live_name: name });
    if (exceptId) q.whereNot('id', exceptId);
    return Boolean(await q.first('id'));
  },

  async list(db: Queryable, tenantId: string, filter: PlaybookFilter, page: PageRequest): Promise<Page<PlaybookWithVersion>> {
    const q = joined(db, tenantId);
    if (filter.search) whereContains(q, ['playbooks.name', 'v.description'], filter.search);
    if (filter.tag !== undefined) {
      q.whereExists((sub) => sub.select(db.raw('1')).from('playbook_tags as t')
        .where('t.tenant_id', tenantId).where('t.tag', filter.tag!).whereRaw('?? = ??', ['t.playbook_id', 'playbooks.id']));
    }
    const result = await paginate<Row>(q, page, (b) => b.orderBy([{ column: 'playbooks.created_at', order: 'desc' }, { column: 'playbooks.id', order: 'desc' }]));
    return { rows: result.rows.map(withVersion), total: result.total };
  },

  /** Newest (highest) first. */
  async versions(db: Queryable, tenantId: string, playbookId: string, page: PageRequest): Promise<Page<PlaybookVersionRecord>> {
    const q = db('playbook_versions').where({ tenant_id: tenantId, playbook_id: playbookId });
    const result = await paginate<Row>(q, page, (b) => b.orderBy(NEWEST_FIRST));
    return { rows: result.rows.map((r) => toVersion(r)), total: result.total };
  },

  async newestVersion(db: Queryable, tenantId: string, playbookId: string): Promise<{ version: string; parts: VersionParts } | null> {
    const row = (await db('playbook_versions').where({ tenant_id: tenantId, playbook_id: playbookId }).orderBy(NEWEST_FIRST).first('version', 'major', 'minor', 'patch')) as Row | undefined;
    return row ? { version: row.version, parts: { major: Number(row.major), minor: Number(row.minor), patch: Number(row.patch) } } : null;
  },

  /** One version with its playbook, deleted playbooks included (runs keep reading what they ran). */
  async findVersion(db: Queryable, tenantId: string, versionId: string): Promise<PlaybookWithVersion | null> {
    const row = (await db('playbook_versions as v').join('playbooks', 'playbooks.id', 'v.playbook_id')
      .where('v.tenant_id', tenantId).where('playbooks.tenant_id', tenantId).where('v.id', versionId)
      .first('playbooks.*', ...VERSION_COLUMNS.map((c) => `v.${c} as v_${c}`))) as Row | undefined;
    return row ? withVersion(row) : null;
  },

  /** Live, enabled playbooks whose active version is triggered by this event kind. */
  async enabledForEvent(db: Queryable, tenantId: string, eventKind: string): Promise<PlaybookWithVersion[]> {
    const rows = (await joined(db, tenantId).where('playbooks.enabled', true).where('v.trigger_event', eventKind)
      .orderBy([{ column: 'playbooks.created_at', order: 'asc' }, { column: 'playbooks.id', order: 'asc' }])) as Row[];
    return rows.map(withVersion);
  },
};
