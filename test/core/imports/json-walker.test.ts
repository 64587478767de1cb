import test from 'ava';
import { ImportFileError } from '../../../core/imports/import-file-error.ts';
import type { PathPart } from '../../../core/imports/json-path.ts';
import { JsonWalker } from '../../../core/imports/json-walker.ts';

const LIMITS = { maxItemChars: 1_000, maxSkeletonChars: 1_000 };
const isResult = (p: readonly PathPart[]) => p.length === 4 && p[0] === 'runs' && p[2] === 'results';

/** The text cut into pieces of `size` characters, as a file stream delivers it. */
const pieces = (text: string, size: number) => async function* () {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
};

async function walk(text: string, size = 7, limits = LIMITS) {
  const walker = new JsonWalker(isResult, limits);
  const items: Array<{ value: unknown; path: PathPart[] }> = [];
  for await (const item of walker.items(pieces(text, size))) items.push(item);
  return { items, skeleton: walker.skeleton };
}

test('items come out one by one with their paths; the rest is the skeleton, whatever the chunk boundaries', async (t) => {
  const doc = { version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ a: 1 }, 'str', [true, null], { b: { c: 'é"\\' } }] }, { results: [] }] };
  for (const size of [1, 3, 64, 10_000]) {
    const { items, skeleton } = await walk(`\uFEFF${JSON.stringify(doc, null, 2)}`, size);
    t.deepEqual(items.map((i) => i.value), doc.runs[0]!.results, `chunks of ${size}`);
    t.deepEqual(items.map((i) => i.path), [0, 1, 2, 3].map((j) => ['runs', 0, 'results', j]));
    t.deepEqual(skeleton, { version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [] }, { results: [] }] });
  }
});

test('a syntax error names its line and column; an empty file says so', async (t) => {
  const error = await t.throwsAsync(walk('{\n  "runs": [\n    {"results": [1,, 2]}\n  ]\n}'), { instanceOf: ImportFileError });
  t.is(error.where, 'line 3, column 20');
  t.regex(error.message, /not valid JSON/);
  const empty = await t.throwsAsync(walk('  \n '), { instanceOf: ImportFileError });
  t.is(empty.where, 'line 1');
  t.regex(empty.message, /empty/);
  const trailing = await t.throwsAsync(walk('{"runs": []} {}'), { instanceOf: ImportFileError });
  t.regex(trailing.where!, /^line 1, column \d+$/);
});

test('one oversized item or skeleton is refused by name instead of growing memory', async (t) => {
  const bigItem = JSON.stringify({ runs: [{ results: [{ ok: 1 }, { text: 'x'.repeat(2_000) }] }] });
  const item = await t.throwsAsync(walk(bigItem, 100), { instanceOf: ImportFileError });
  t.is(item.where, '$.runs[0].results[1]');
  const bigSkeleton = JSON.stringify({ runs: [{ tool: { text: 'y'.repeat(2_000) }, results: [] }] });
  const skeleton = await t.throwsAsync(walk(bigSkeleton, 100), { instanceOf: ImportFileError });
  t.regex(skeleton.message, /outside its results/);
});
