import test from 'ava';
import { idPattern, newId } from '../../core/ids.ts';

test('ids are prefixed, 26 Crockford base32 characters, and match their pattern', (t) => {
  const id = newId('ast');
  t.regex(id, /^ast_[0-9A-HJKMNP-TV-Z]{26}$/);
  t.true(idPattern('ast').test(id));
  t.false(idPattern('scn').test(id));
});

test('ids sort by creation time and do not repeat', (t) => {
  const early = newId('fnd', 1_700_000_000_000);
  const late = newId('fnd', 1_700_000_000_001);
  t.true(early < late);
  const many = new Set(Array.from({ length: 10_000 }, () => newId('fnd', 1_700_000_000_000)));
  t.is(many.size, 10_000);
});
