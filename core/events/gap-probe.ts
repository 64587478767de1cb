import { dialectOf, type Queryable } from '../db/create-db.ts';
import type { GapClock } from './gap-clock.ts';

/** What a locking look at a range of event ids found. */
export type GapState =
  /** Some id in the range belongs to a transaction that is still open: its event may yet commit. */
  | { open: true }
  /** Nothing in the range is in flight; `committed` are the ids there now. */
  | { open: false; committed: number[] };

// MariaDB answers NOWAIT with "lock wait timeout"; MySQL 8 with its own code.
const LOCKED = new Set([1205, 3572]);

/**
 * Asks MariaDB whether the missing ids between `afterId` and `beforeId` (exclusive) are
 * held by open transactions. An insert that has not committed keeps its new row locked,
 * so a locking read over the range fails at once (NOWAIT) if any such row is there, and
 * otherwise returns what is committed: a missing id that is neither is gone for good
 * (a rolled-back insert, an auto-increment step). This replaces guessing from the
 * clock, which lost the events of transactions slower than the guess.
 *
 * Only MariaDB/MySQL can have such holes: SQLite has one writer, whose open insert is
 * always above every committed id. There `null` means "no transaction can hold it".
 */
export async function probeGap(db: Queryable, afterId: number, beforeId: number): Promise<GapState | null> {
  if (dialectOf(db) !== 'mysql') return null;
  try {
    const [rows] = (await db.raw('SELECT id FROM events WHERE id > ? AND id < ? LOCK IN SHARE MODE NOWAIT', [afterId, beforeId])) as [Array<{ id: number | string }>];
    return { open: false, committed: rows.map((r) => Number(r.id)) };
  } catch (err) {
    if (LOCKED.has((err as { errno?: number }).errno ?? 0)) return { open: true };
    throw err;
  }
}

/**
 * How many of `ids` (ascending, all above `afterId`) a reader may take now: it stops
 * before the first hole that an open transaction holds (or that was filled since the
 * read: the next read takes it in order). A hole held open longer than `maxWaitMs`
 * since the reader's `gaps` clock first saw it is passed (a stuck transaction must not
 * halt every reader for good); without a clock the reader waits for it however long.
 */
export async function readablePrefix(db: Queryable, afterId: number, ids: number[], maxWaitMs: number, now: number, gaps?: GapClock): Promise<number> {
  const holes = ids.some((id, i) => id !== (i === 0 ? afterId : ids[i - 1]!) + 1);
  if (!holes) return ids.length;
  // One look over the whole batch settles the common case: every hole is gone for good.
  const whole = await probeGap(db, afterId, ids[ids.length - 1]!);
  if (!whole) return ids.length;
  if (!whole.open && whole.committed.length === ids.length - 1) return ids.length;
  let expected = afterId + 1;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id !== expected) {
      const state = (await probeGap(db, expected - 1, id))!;
      if (!state.open && state.committed.length) return i;
      if (state.open && (!gaps || gaps.waited(expected, now) < maxWaitMs)) return i;
    }
    expected = id + 1;
  }
  return ids.length;
}
