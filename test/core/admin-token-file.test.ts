import test from 'ava';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeAdminTokenFile } from '../../core/admin-token-file.ts';

test('the token file is created with its folder, readable by its owner only', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = writeAdminTokenFile(join(dir, 'data', 'admin-token'), 'rmp_one');
  t.is(path, join(dir, 'data', 'admin-token'));
  t.is(readFileSync(path, 'utf8'), 'rmp_one\n');
  t.is(statSync(path).mode & 0o777, 0o600);
  t.is(statSync(join(dir, 'data')).mode & 0o777, 0o700);
});

test('an existing file (a database made anew) is replaced; a planted symlink is replaced, never written through', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeAdminTokenFile(join(dir, 'admin-token'), 'rmp_old');
  writeAdminTokenFile(join(dir, 'admin-token'), 'rmp_new');
  t.is(readFileSync(join(dir, 'admin-token'), 'utf8'), 'rmp_new\n');

  const victim = join(dir, 'victim');
  writeFileSync(victim, 'keep me');
  symlinkSync(victim, join(dir, 'linked-token'));
  writeAdminTokenFile(join(dir, 'linked-token'), 'rmp_x');
  t.is(readFileSync(victim, 'utf8'), 'keep me');
  t.is(readFileSync(join(dir, 'linked-token'), 'utf8'), 'rmp_x\n');
  t.false(existsSync(join(dir, `linked-token.${process.pid}.tmp`)));
});
