import test from 'ava';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '../../../core/secrets/secret-box.ts';

const key = () => randomBytes(32);

test('seals and opens; the sealed form reveals nothing of the secret', (t) => {
  const box = new SecretBox(key());
  const sealed = box.seal('whsec_top-secret-value', 'webhook:a:secret');
  t.false(sealed.includes('top-secret'));
  t.regex(sealed, /^v1\.[0-9a-f]{12}\./);
  t.not(sealed, box.seal('whsec_top-secret-value', 'webhook:a:secret'), 'a fresh IV each time');
  t.is(box.open(sealed, 'webhook:a:secret'), 'whsec_top-secret-value');
});

test('a sealed value only opens in its own context and when untampered', (t) => {
  const box = new SecretBox(key());
  const sealed = box.seal('s3cret', 'webhook:a:secret');
  t.throws(() => box.open(sealed, 'webhook:b:secret'));
  const parts = sealed.split('.');
  parts[3] = Buffer.from('x'.repeat(6)).toString('base64url');
  t.throws(() => box.open(parts.join('.'), 'webhook:a:secret'));
});

test('a wrong key is named in the error; previous keys still open old values', (t) => {
  const oldKey = key();
  const sealed = new SecretBox(oldKey).seal('s3cret', 'c');
  const error = t.throws(() => new SecretBox(key()).open(sealed, 'c'));
  t.regex(error!.message, /not configured/);
  const rotated = new SecretBox(key(), [oldKey]);
  t.is(rotated.open(sealed, 'c'), 's3cret');
  t.true(rotated.isStale(sealed));
  t.false(rotated.isStale(rotated.seal('x', 'c')));
});

test('fromConfig: a configured key must be 32 bytes', (t) => {
  t.throws(() => SecretBox.fromConfig({ key: Buffer.alloc(16).toString('base64'), previousKeys: [], keyFile: '/nonexistent/x' }), { message: /exactly 32 bytes/ });
  const configured = SecretBox.fromConfig({ key: key().toString('base64'), previousKeys: [], keyFile: '/nonexistent/x' });
  t.is(configured.open(configured.seal('v', 'c'), 'c'), 'v');
});

test('fromConfig without a key creates a 0600 key file once and reuses it', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-key-'));
  try {
    const keyFile = join(dir, 'data', 'secret.key');
    const first = SecretBox.fromConfig({ key: null, previousKeys: [], keyFile });
    t.is(statSync(keyFile).mode & 0o777, 0o600);
    t.is(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64').length, 32);
    const second = SecretBox.fromConfig({ key: null, previousKeys: [], keyFile });
    t.is(second.open(first.seal('v', 'c'), 'c'), 'v');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
