import type { GapClock } from './gap-clock.ts';

/** What a locking look at a range of event ids found (eventRepository.probeHole). */
export type HoleState =
  /** Some id in the range belongs to a transaction that is still open: its event may yet commit. */
  | { open: true }
  /** Nothing in the range is in flight; `committed` are the ids there now. */
  | { open: false; committed: number[] };

/** Looks at the ids strictly between two; null where no transaction can hold a hole (SQLite). */
export type HoleProbe = (afterId: number, beforeId: number) => Promise<HoleState | null>;

/**
 * How many of `ids` (ascending, all above `afterId`) a reader may take now: it stops
 * before the first hole that an open transaction holds, or that was filled since the
 * read (the next read takes it, in order). A hole nothing holds (a rolled-back insert,
 * an auto-increment step) is passed at once. A hole held for `maxWaitMs` since the
 * reader's `gaps` clock first saw it is passed too (a stuck transaction must not halt
 * every reader for good); without a clock the reader waits on it however long.
 * The database is asked instead of the clock guessing: a guess lost the events of
 * transactions slower than it on a loaded server.
 */
export async function readablePrefix(ids: number[], afterId: number, probe: HoleProbe, maxWaitMs: number, now: number, gaps?: GapClock): Promise<number> {
  const holes = ids.some((id, i) => id !== (i === 0 ? afterId : ids[i - 1]!) + 1);
  if (!holes) return ids.length;
  // One look over the whole batch settles the common case: every hole is gone for good.
  const whole = await probe(afterId, ids[ids.length - 1]!);
  if (!whole) return ids.length;
  if (!whole.open && whole.committed.length === ids.length - 1) return ids.length;
  let expected = afterId + 1;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id !== expected) {
      const state = (await probe(expected - 1, id))!;
      if (!state.open && state.committed.length) return i;
      if (state.open && (!gaps || gaps.waited(expected, now) < maxWaitMs)) return i;
    }
    expected = id + 1;
  }
  return ids.length;
}
