import type { Queryable } from '../db/create-db.ts';

export interface SiemLag {
  integration: string;
  /** The tenant's events committed after the integration's cursor. */
  events: number;
  /** Seconds since the oldest of those was committed (0 when caught up). */
  seconds: number;
}

type IntegrationRow = { id: string; tenant_id: string };
type LagRow = { n: number | string; oldest: number | string | null };

/**
 * How far each active SIEM integration's forwarding cursor (`siem:<id>` in event_cursors)
 * trails its tenant's events: one range count on the (tenant_id, id) index per integration.
 * The integration is named by its id (opaque), never by tenant or host name.
 */
export async function readSiemLag(db: Queryable, now: number): Promise<SiemLag[]> {
  const rows = (await db('siem_integrations').where({ active: true }).select('id', 'tenant_id')) as IntegrationRow[];
  if (rows.length === 0) return [];
  const cursors = (await db('event_cursors')
    .whereIn('consumer', rows.map((r) => `siem:${r.id}`))
    .select('consumer', 'last_event_id')) as Array<{ consumer: string; last_event_id: number | string }>;
  const position = new Map(cursors.map((c) => [c.consumer, Number(c.last_event_id)]));
  return Promise.all(
    rows.map(async (r) => {
      const lag = (await db('events')
        .where('tenant_id', r.tenant_id)
        .where('id', '>', position.get(`siem:${r.id}`) ?? 0)
        .select(db.raw('count(*) as n'), db.raw('min(created_at) as oldest'))
        .first()) as LagRow | undefined;
      const oldest = lag?.oldest === null || lag?.oldest === undefined ? null : Number(lag.oldest);
      return { integration: r.id, events: Number(lag?.n ?? 0), seconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000) };
    }),
  );
}
