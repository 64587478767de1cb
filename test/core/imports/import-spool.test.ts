import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { Readable } from 'node:stream';
import test from 'ava';
import { PayloadTooLargeError } from '../../../core/errors.ts';
import { spoolUpload } from '../../../core/imports/import-spool.ts';

const dir = mkdtempSync(join(tmpdir(), 'rampart-spool-test-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

test('an upload lands in a private file, read back as text as often as needed, then deleted', async (t) => {
  const spool = await spoolUpload(Readable.from([Buffer.from('{"a":'), Buffer.from('"é"}')]), { dir, maxBytes: 100 });
  t.is(spool.bytes, 10);
  t.is(readFileSync(spool.path, 'utf8'), '{"a":"é"}');
  t.is(statSync(spool.path).mode & 0o777, 0o600);
  t.is(statSync(dirname(spool.path)).mode & 0o777, 0o700);
  for (let i = 0; i < 2; i++) {
    let text = '';
    for await (const chunk of spool.text()) text += chunk;
    t.is(text, '{"a":"é"}');
  }
  await spool.dispose();
  t.false(existsSync(dirname(spool.path)));
});

test('more than maxBytes is a 413 and leaves nothing behind, whether or not a length was declared', async (t) => {
  const body = Readable.from((function* () {
    for (let i = 0; i < 10; i++) yield Buffer.alloc(64, 0x61);
  })());
  const own = mkdtempSync(join(dir, 'limit-'));
  const error = await t.throwsAsync(spoolUpload(body, { dir: own, maxBytes: 300 }), { instanceOf: PayloadTooLargeError });
  t.like(error.extra, { max_bytes: 300 });
  t.deepEqual(readdirSync(own), []);
});
