import test from 'ava';
import { hashPassword, needsRehash, verifyPassword } from '../../../core/auth/password.ts';

const params = { N: 1024, r: 8, p: 1 };

test('hash then verify; wrong password and tampered hashes fail', async (t) => {
  const hash = await hashPassword('correct horse battery staple', params);
  t.regex(hash, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  t.true(await verifyPassword('correct horse battery staple', hash));
  t.false(await verifyPassword('correct horse battery stapl', hash));
  t.false(await verifyPassword('x', 'bcrypt$whatever'));
  t.false(await verifyPassword('x', ''));
});

test('salts differ, and a parameter change asks for a rehash', async (t) => {
  const a = await hashPassword('same', params);
  const b = await hashPassword('same', params);
  t.not(a, b);
  t.false(needsRehash(a, params));
  t.true(needsRehash(a, { N: 2048, r: 8, p: 1 }));
});
