import test from 'ava';
import { MASK, MAX_SCRUB_DEPTH, SecretScrubber, TOO_DEEP } from '../../../core/action-runs/secret-scrubber.ts';

const nest = (leaf: unknown, levels: number): unknown => {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { d: v };
  return v;
};
const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + depthOf((v as { d: unknown }).d) : 0);

test('strings, keys and encoded forms are masked; other values are kept', (t) => {
  const s = new SecretScrubber(['hunter2-secret']);
  t.deepEqual(s.value({ a: 'x hunter2-secret y', ['hunter2-secret']: 1, b64: Buffer.from('hunter2-secret').toString('base64'), n: 42, ok: true, nil: null }), { a: `x ${MASK} y`, [MASK]: 1, b64: MASK, n: 42, ok: true, nil: null });
});

test('a number whose digits are a secret is masked, negative or inside a longer number too', (t) => {
  const s = new SecretScrubber(['4711']);
  t.deepEqual(s.value({ pin: 4711, negative: -4711, longer: 947110, other: 4712, list: [4711, 1] }), { pin: MASK, negative: MASK, longer: MASK, other: 4712, list: [MASK, 1] });
  const long = new SecretScrubber(['900000000012345']);
  t.deepEqual(long.value({ key: 900000000012345 }), { key: MASK });
});

test(`a subtree nested deeper than ${MAX_SCRUB_DEPTH} levels is replaced, never passed through`, (t) => {
  const s = new SecretScrubber(['hunter2-secret']);
  const out = s.value(nest({ key: 'hunter2-secret', o: { x: 1 } }, 70));
  t.false(JSON.stringify(out).includes('hunter2-secret'));
  t.true(JSON.stringify(out).includes(TOO_DEEP));
  t.is(depthOf(out), MAX_SCRUB_DEPTH, 'kept up to the limit');
  const shallow = nest({ key: 'hunter2-secret' }, MAX_SCRUB_DEPTH - 2);
  t.false(JSON.stringify(s.value(shallow)).includes(TOO_DEEP), 'what fits is walked, not replaced');
  t.true(JSON.stringify(s.value(shallow)).includes(MASK));
});
