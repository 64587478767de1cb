import type { Knex } from 'knex';
import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { whereContains } from '../db/like-pattern.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import type { ActionBehaviour, ExecutorRef, ParameterSpec } from './action-version.ts';
import type { VersionDraft } from './action-draft.ts';

export interface ActionRecord {
  id: string;
  tenantId: string;
  name: string;
  view: 'reference' | 'definition';
  enabled: boolean;
  activeVersionId: string;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface VersionRecord extends ActionBehaviour {
  id: string;
  actionId: string;
  tenantId: string;
  version: string;
  major: number;
  minor: number;
  patch: number;
  createdBy: string | null;
  createdAt: number;
}

/** An action with its active version. */
export interface ActionWithVersion {
  action: ActionRecord;
  version: VersionRecord;
}

export interface ActionFilter {
  type?: string;
  search?: string;
}

type Row = Record<string, any>;

function toAction(r: Row): ActionRecord {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    name: r.name,
    view: r.view,
    enabled: Boolean(r.enabled),
    activeVersionId: r.active_version_id,
    createdBy: r.created_by ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function toVersion(r: Row, prefix = ''): VersionRecord {
  const c = (name: string) => r[`${prefix}${name}`];
  return {
    id: c('id'),
    actionId: c('action_id'),
    tenantId: c('tenant_id'),
    version: c('version'),
    major: Number(c('major')),
    minor: Number(c('minor')),
    patch: Number(c('patch')),
    type: c('type'),
    description: c('description'),
    executor: fromJson<ExecutorRef>(c('executor'), { type: 'local' }),
    config: fromJson<Record<string, unknown>>(c('config'), {}),
    parameters: fromJson<ParameterSpec[]>(c('parameters'), []),
    inputMapping: fromJson<Record<string, unknown> | null>(c('input_mapping'), null),
    timeoutSeconds: Number(c('timeout_seconds')),
    retry: fromJson(c('retry'), { maxAttempts: 1, backoffSeconds: 0 }),
    createdBy: c('created_by') ?? null,
    createdAt: Number(c('created_at')),
  };
}

const VERSION_COLUMNS = ['id', 'action_id', 'tenant_id', 'version', 'major', 'minor', 'patch', 'type', 'description', 'executor', 'config', 'parameters', 'input_mapping', 'timeout_seconds', 'retry', 'created_by', 'created_at'];

/** actions joined to their active version; version columns come back as `v_<column>`. */
function joined(db: Queryable, tenantId: string): Knex.QueryBuilder {
  return db('actions')
    .join('action_versions as v', 'v.id', 'actions.active_version_id')
    .where('actions.tenant_id', tenantId)
    .select('actions.*', ...VERSION_COLUMNS.map((c) => `v.${c} as v_${c}`));
}

const withVersion = (r: Row): ActionWithVersion => ({ action: toAction(r), version: toVersion(r, 'v_') });

export const actionRepository = {
  async insertAction(db: Queryable, a: ActionRecord): Promise<void> {
    await db('actions').insert({
      id: a.id, tenant_id: a.tenantId, name: a.name, view: a.view, enabled: a.enabled, active_version_id: a.activeVersionId,
      created_by: a.createdBy, created_at: a.createdAt, updated_at: a.updatedAt,
    });
  },

  async insertVersion(db: Queryable, id: string, actionId: string, tenantId: string, d: VersionDraft, createdBy: string | null, now: number): Promise<void> {
    await db('action_versions').insert({
      id, action_id: actionId, tenant_id: tenantId, version: d.version, major: d.parts.major, minor: d.parts.minor, patch: d.parts.patch,
      type: d.type, description: d.description, executor: toJson(d.executor), config: toJson(d.config), parameters: toJson(d.parameters),
      input_mapping: d.inputMapping === null ? null : toJson(d.inputMapping), timeout_seconds: d.timeoutSeconds, retry: toJson(d.retry),
      created_by: createdBy, created_at: now,
    });
  },

  async update(db: Queryable, tenantId: string, id: string, changes: { enabled?: boolean; activeVersionId?: string; updatedAt: number }): Promise<number> {
    const cols: Row = { updated_at: changes.updatedAt };
    if (changes.enabled !== undefined) cols.enabled = changes.enabled;
    if (changes.activeVersionId !== undefined) cols.active_version_id = changes.activeVersionId;
    return db('actions').where({ tenant_id: tenantId, id }).update(cols);
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<ActionWithVersion | null> {
    const row = (await joined(db, tenantId).where('actions.id', id).first()) as Row | undefined;
    return row ? withVersion(row) : null;
  },

  async findByName(db: Queryable, tenantId: string, name: string): Promise<ActionWithVersion | null> {
    const row = (await joined(db, tenantId).where('actions.name', name).first()) as Row | undefined;
    return row ? withVersion(row) : null;
  },

  async nameTaken(db: Queryable, tenantId: string, name: string): Promise<boolean> {
    return Boolean(await db('actions').where({ tenant_id: tenantId, name }).first('id'));
  },

  async list(db: Queryable, tenantId: string, filter: ActionFilter, page: PageRequest): Promise<Page<ActionWithVersion>> {
    const q = joined(db, tenantId);
    if (filter.type) q.where('v.type', filter.type);
    if (filter.search) whereContains(q, ['actions.name', 'v.description'], filter.search);
    const result = await paginate<Row>(q, page, (b) => b.orderBy([{ column: 'actions.created_at', order: 'desc' }, { column: 'actions.id', order: 'desc' }]));
    return { rows: result.rows.map(withVersion), total: result.total };
  },

  /** Newest first (by semantic version). */
  async versions(db: Queryable, tenantId: string, actionId: string, page: PageRequest): Promise<Page<VersionRecord>> {
    const q = db('action_versions').where({ tenant_id: tenantId, action_id: actionId });
    const result = await paginate<Row>(q, page, (b) => b.orderBy([{ column: 'major', order: 'desc' }, { column: 'minor', order: 'desc' }, { column: 'patch', order: 'desc' }]));
    return { rows: result.rows.map((r) => toVersion(r)), total: result.total };
  },

  async newestVersion(db: Queryable, tenantId: string, actionId: string): Promise<VersionRecord | null> {
    const row = (await db('action_versions').where({ tenant_id: tenantId, action_id: actionId })
      .orderBy([{ column: 'major', order: 'desc' }, { column: 'minor', order: 'desc' }, { column: 'patch', order: 'desc' }]).first()) as Row | undefined;
    return row ? toVersion(row) : null;
  },

  async findVersion(db: Queryable, tenantId: string, actionId: string, version: string): Promise<VersionRecord | null> {
    const row = (await db('action_versions').where({ tenant_id: tenantId, action_id: actionId, version }).first()) as Row | undefined;
    return row ? toVersion(row) : null;
  },
};
