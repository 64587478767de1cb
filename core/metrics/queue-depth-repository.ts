import type { Queryable } from '../db/create-db.ts';

/**
 * The durable queues whose depth and oldest-waiting age /metrics reports: each is a table
 * of the lease kernel (core/work/) with the rows that wait to run and the column that says
 * since when they wait. Read at scrape time by one indexed count per queue, so the figures
 * are the cluster's (every process sees the same database), not one process's.
 */
export interface QueueGauge {
  name: string;
  table: string;
  status: readonly string[];
  /** Epoch-ms column: when a waiting row became (or becomes) due. */
  since: string;
  /** The queue is the table's rows where this column is null (false) or set (true). */
  present?: { column: string; set: boolean };
}

export const QUEUES: readonly QueueGauge[] = [
  { name: 'scans', table: 'scans', status: ['queued'], since: 'created_at' },
  // Scan callbacks are deliveries of the webhook queue that name a scan.
  { name: 'scan_callbacks', table: 'webhook_deliveries', status: ['pending', 'retried'], since: 'next_attempt_at', present: { column: 'scan_id', set: true } },
  { name: 'webhook_deliveries', table: 'webhook_deliveries', status: ['pending', 'retried'], since: 'next_attempt_at', present: { column: 'scan_id', set: false } },
  { name: 'exports', table: 'finding_exports', status: ['queued'], since: 'created_at' },
  { name: 'action_runs', table: 'action_executions', status: ['pending'], since: 'due_at' },
  { name: 'playbook_runs', table: 'playbook_runs', status: ['pending', 'running', 'paused'], since: 'due_at' },
  { name: 'agent_jobs', table: 'agent_jobs', status: ['queued'], since: 'created_at' },
];

export interface QueueReading {
  name: string;
  depth: number;
  /** Seconds the oldest due row has waited (0 when none is due yet). */
  oldestAgeSeconds: number;
}

type Row = { n: number | string; oldest: number | string | null };

/** Depth (rows waiting, due or not) and the age of the oldest row already due. */
export async function readQueues(db: Queryable, now: number): Promise<QueueReading[]> {
  return Promise.all(
    QUEUES.map(async (q) => {
      const query = db(q.table).whereIn('status', q.status as string[]);
      if (q.present) query[q.present.set ? 'whereNotNull' : 'whereNull'](q.present.column);
      const row = (await query
        .select(db.raw('count(*) as n'), db.raw('min(case when ?? <= ? then ?? end) as oldest', [q.since, now, q.since]))
        .first()) as Row | undefined;
      const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
      return { name: q.name, depth: Number(row?.n ?? 0), oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (now - oldest) / 1000) };
    }),
  );
}
