import test from 'ava';
import { GapClock } from '../../../core/events/gap-clock.ts';
import { readablePrefix, type HoleState } from '../../../core/events/readable-prefix.ts';

/** A probe over a made-up table: `committed` ids and `open` ids (inserted, not committed). */
function table(committed: number[], open: number[] = []) {
  const calls: Array<[number, number]> = [];
  const probe = async (after: number, before: number): Promise<HoleState> => {
    calls.push([after, before]);
    if (open.some((id) => id > after && id < before)) return { open: true };
    return { open: false, committed: committed.filter((id) => id > after && id < before) };
  };
  return { probe, calls };
}

test('a batch without holes is taken whole without asking the database', async (t) => {
  const { probe, calls } = table([11, 12, 13]);
  t.is(await readablePrefix([11, 12, 13], 10, probe, 1000, 0), 3);
  t.deepEqual(calls, []);
});

test('holes nothing holds are settled by one look over the batch', async (t) => {
  const { probe, calls } = table([12, 15, 16]);
  t.is(await readablePrefix([12, 15, 16], 10, probe, 1000, 0), 3);
  t.deepEqual(calls, [[10, 16]]);
});

test('the batch stops before the first held hole, after passing the rolled-back ones', async (t) => {
  const { probe } = table([12, 15, 16], [14]);
  t.is(await readablePrefix([12, 15, 16], 10, probe, 1000, 0), 1);
});

test('a hole filled since the read stops the batch there: the next read takes it in order', async (t) => {
  // 11 committed after the batch was read.
  const { probe } = table([11, 12, 13]);
  t.is(await readablePrefix([12, 13], 10, probe, 1000, 0), 0);
});

test('a held hole is waited on for maxWaitMs from when the clock first saw it, then passed; without a clock, for ever', async (t) => {
  const { probe } = table([12], [11]);
  const gaps = new GapClock();
  t.is(await readablePrefix([12], 10, probe, 1000, 5_000, gaps), 0);
  t.is(await readablePrefix([12], 10, probe, 1000, 5_999, gaps), 0);
  t.is(await readablePrefix([12], 10, probe, 1000, 6_000, gaps), 1);
  t.is(await readablePrefix([12], 10, probe, 1000, 1e12), 0);
});

test('where no transaction can hold a hole (SQLite: the probe answers null), everything read is taken', async (t) => {
  t.is(await readablePrefix([12, 20], 10, async () => null, 1000, 0), 2);
});
