import type { Queryable } from '../db/create-db.ts';
import { toIsoRequired } from '../time.ts';
import type { FindingStatus } from '../domain/finding-status.ts';
import { insertBatched } from '../db/insert-batches.ts';

/** A note on a finding, as the detail view shows it. */
export interface FindingNote {
  id: string;
  author: string;
  text: string;
  created_at: string;
}

/** One status move; `old_status` is null on the entry written when the finding was created. */
export interface StatusChange {
  old_status: FindingStatus | null;
  new_status: FindingStatus;
  changed_by: string | null;
  changed_at: string;
  note_id: string | null;
}

interface NoteRow { id: string; author: string; text: string; created_at: number }
interface HistoryRow { old_status: FindingStatus | null; new_status: FindingStatus; changed_by: string | null; changed_at: number; note_id: string | null }

export const findingHistoryRepository = {
  async addNote(db: Queryable, note: { id: string; tenantId: string; findingId: string; author: string; text: string; now: number }): Promise<void> {
    await db('finding_notes').insert({ id: note.id, tenant_id: note.tenantId, finding_id: note.findingId, author: note.author, text: note.text, created_at: note.now });
  },

  async addChanges(db: Queryable, changes: Array<{ tenantId: string; findingId: string; oldStatus: FindingStatus | null; newStatus: FindingStatus; changedBy: string | null; noteId: string | null; now: number }>): Promise<void> {
    await insertBatched(db, 'finding_status_history', changes.map((c) => ({
      tenant_id: c.tenantId, finding_id: c.findingId, old_status: c.oldStatus, new_status: c.newStatus, changed_by: c.changedBy, note_id: c.noteId, changed_at: c.now,
    })));
  },

  async notes(db: Queryable, findingId: string): Promise<FindingNote[]> {
    const rows = (await db('finding_notes').where({ finding_id: findingId }).orderBy([{ column: 'created_at' }, { column: 'id' }])) as NoteRow[];
    return rows.map((r) => ({ id: r.id, author: r.author, text: r.text, created_at: toIsoRequired(r.created_at) }));
  },

  async history(db: Queryable, findingId: string): Promise<StatusChange[]> {
    const rows = (await db('finding_status_history').where({ finding_id: findingId }).orderBy('id', 'asc')) as HistoryRow[];
    return rows.map((r) => ({ old_status: r.old_status, new_status: r.new_status, changed_by: r.changed_by, changed_at: toIsoRequired(r.changed_at), note_id: r.note_id }));
  },
};
