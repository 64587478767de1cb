import { eventCursorRepository } from '../events/event-cursor-repository.ts';
import { eventRepository } from '../events/event-repository.ts';
import type { Queryable } from '../db/create-db.ts';
import { fromJson, toJson } from '../db/json.ts';
import { paginate, type Page, type PageRequest } from '../db/paginate.ts';
import type { SiemFormat, SiemProtocol, SiemRecord } from './siem-views.ts';

// The forwarders, the renderer and the runtime still import SiemRecord from here.
export type { SiemRecord } from './siem-views.ts';

export type SiemChanges = Partial<Omit<SiemRecord, 'id' | 'tenantId' | 'createdAt'>>;

type Row = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toRecord(r: Row): SiemRecord {
  return {
    id: String(r.id),
    tenantId: String(r.tenant_id),
    name: String(r.name),
    type: 'syslog',
    protocol: r.protocol as SiemProtocol,
    host: String(r.host),
    port: Number(r.port),
    format: r.format as SiemFormat,
    events: fromJson<string[]>(r.events as string, []),
    facility: Number(r.facility),
    active: Boolean(r.active),
    tlsCa: (r.tls_ca as string | null) ?? null,
    tlsCert: (r.tls_cert as string | null) ?? null,
    tlsKeySealed: (r.tls_key_sealed as string | null) ?? null,
    tlsServerName: (r.tls_server_name as string | null) ?? null,
    tlsVerify: Boolean(r.tls_verify),
    lastError: (r.last_error as string | null) ?? null,
    lastErrorAt: num(r.last_error_at),
    lastSentAt: num(r.last_sent_at),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

const COLUMNS: Array<[keyof SiemChanges, string]> = [
  ['name', 'name'], ['type', 'type'], ['protocol', 'protocol'], ['host', 'host'], ['port', 'port'], ['format', 'format'],
  ['facility', 'facility'], ['active', 'active'], ['tlsCa', 'tls_ca'], ['tlsCert', 'tls_cert'], ['tlsKeySealed', 'tls_key_sealed'],
  ['tlsServerName', 'tls_server_name'], ['tlsVerify', 'tls_verify'], ['lastError', 'last_error'], ['lastErrorAt', 'last_error_at'],
  ['lastSentAt', 'last_sent_at'], ['updatedAt', 'updated_at'],
];

function toColumns(c: SiemChanges): Row {
  const out: Row = {};
  for (const [key, col] of COLUMNS) if (c[key] !== undefined) out[col] = c[key];
  if (c.events !== undefined) out.events = toJson(c.events);
  return out;
}

/** The durable cursor of an integration's forwarder (core/events/event-consumer.ts). */
export const siemConsumerName = (id: string): string => `siem:${id}`;

export const siemRepository = {
  /** Inserts the integration and its cursor, placed after the newest event: it forwards from now on. */
  async insert(db: Queryable, id: string, tenantId: string, values: SiemChanges & { createdAt: number }): Promise<void> {
    await db('siem_integrations').insert({ id, tenant_id: tenantId, created_at: values.createdAt, ...toColumns(values) });
    await eventCursorRepository.ensure(db, siemConsumerName(id), await eventRepository.latestId(db), values.createdAt);
  },

  async findById(db: Queryable, tenantId: string, id: string): Promise<SiemRecord | null> {
    const row = (await db('siem_integrations').where({ tenant_id: tenantId, id }).first()) as Row | undefined;
    return row ? toRecord(row) : null;
  },

  async list(db: Queryable, tenantId: string, page: PageRequest): Promise<Page<SiemRecord>> {
    const result = await paginate<Row>(db('siem_integrations').where({ tenant_id: tenantId }), page, (q) => q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]));
    return { rows: result.rows.map(toRecord), total: result.total };
  },

  async countByTenant(db: Queryable, tenantId: string): Promise<number> {
    const row = (await db('siem_integrations').where({ tenant_id: tenantId }).count({ n: '*' }).first()) as { n: number | string };
    return Number(row.n);
  },

  /** Every tenant's active integrations: what the forwarders of a process run. */
  async listActive(db: Queryable): Promise<SiemRecord[]> {
    return ((await db('siem_integrations').where({ active: true }).orderBy('id')) as Row[]).map(toRecord);
  },

  async update(db: Queryable, tenantId: string, id: string, changes: SiemChanges): Promise<number> {
    return db('siem_integrations').where({ tenant_id: tenantId, id }).update(toColumns(changes));
  },

  /** Delivery bookkeeping written by the forwarder (no tenant scope: it acts for every tenant). */
  async recordOutcome(db: Queryable, id: string, outcome: { lastSentAt?: number; lastError?: string | null; lastErrorAt?: number | null }): Promise<void> {
    await db('siem_integrations').where({ id }).update(toColumns(outcome));
  },

  async delete(db: Queryable, tenantId: string, id: string): Promise<number> {
    const n = await db('siem_integrations').where({ tenant_id: tenantId, id }).delete();
    if (n) await eventCursorRepository.remove(db, siemConsumerName(id));
    return n;
  },
};
