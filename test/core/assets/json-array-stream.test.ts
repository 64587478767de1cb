import test from 'ava';
import { jsonArrayElements } from '../../../core/assets/json-array-stream.ts';

async function collect(chunks: string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of jsonArrayElements((async function* () { yield* chunks; })(), 'assets')) out.push(item);
  return out;
}

test('yields elements across arbitrary chunk boundaries', async (t) => {
  const doc = JSON.stringify({ assets: [{ name: 'a]b,"c', tags: ['x', '{'] }, 'str\\"ing', 42, null, [1, [2]], { nested: { deep: ['}'] } }] }, null, 2);
  const expected = JSON.parse(doc).assets;
  t.deepEqual(await collect([doc]), expected);
  for (const size of [1, 2, 3, 7]) {
    const chunks: string[] = [];
    for (let i = 0; i < doc.length; i += size) chunks.push(doc.slice(i, i + size));
    t.deepEqual(await collect(chunks), expected, `chunk size ${size}`);
  }
  t.deepEqual(await collect(['{"assets":[]}']), []);
});

test('rejects anything but exactly {"assets": [...]}', async (t) => {
  for (const doc of ['', '[]', '{"assets": {}}', '{"other": [], "assets": []}', '{"assets": [1,]}', '{"assets": [,1]}', '{"assets": [1] ', '{"assets": [1]} x', '{"assets": [{"a": }]}']) {
    await t.throwsAsync(collect([doc]), { message: /not a valid JSON import document/ }, doc);
  }
});
