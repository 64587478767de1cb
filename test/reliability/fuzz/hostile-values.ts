import type { SeededRandom } from './seeded-random.ts';

/** Strings that have broken parsers, queries, exports and templates elsewhere. */
export const INJECTION_STRINGS: readonly string[] = [
  "' OR '1'='1",
  "'; DROP TABLE assets; --",
  '" OR ""="',
  '1; SELECT SLEEP(5)',
  "') UNION SELECT password_hash FROM users --",
  '%',
  '_',
  '\\',
  '\\%\\_',
  '=cmd|\' /C calc\'!A0',
  '=HYPERLINK("http://evil.example","x")',
  '+1+1',
  '-2+3',
  '@SUM(1,1)',
  ' =1+1',
  '\uff1d1+1',
  '\t=1',
  '{{ 7*7 }}',
  '{{constructor.constructor("return process")()}}',
  '{{',
  '}}',
  '{{ target }}',
  '{{ steps.x.output }}',
  '${7*7}',
  '${jndi:ldap://127.0.0.1/a}',
  '#{7*7}',
  '<%= 7*7 %>',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '..\\..\\windows',
  '/dev/null',
  'a\r\nX-Injected: 1',
  '\r\n\r\n',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  'NaN',
  '-0',
  '1e309',
  '0x10',
  'ast_00000000000000000000000000',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  'https://[::127.0.0.1]:8443/',
  'javascript:alert(1)',
  '*',
  '.*',
  '(a+)+$',
  '',
  ' ',
];

/** Unicode that trips length checks, collations and byte/char confusions. */
export const UNICODE_STRINGS: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\u0000'.repeat(64),
  '\ud800',
  'x\udfffy',
  '\ufeffbom',
  '\u202etxt.exe',
  'e\u0301\u0301\u0301\u0301',
  '\u200b\u200c\u200d',
  '😀'.repeat(40),
  '𝕏𝕐ℤ',
  'İıſK',
  'ÅÄÖ ünïcødé',
  '中文字符测试',
  'עברית',
  '\u0085\u2028\u2029',
  '\u001b[31mred',
  '\u007f',
];

export function hugeString(rng: SeededRandom): string {
  const size = rng.pick([257, 1025, 4097, 20_001, 70_000, 300_000]);
  const unit = rng.pick(['a', 'é', '😀', '\u0000', "'", '%', '{{x}}']);
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

export function hostileString(rng: SeededRandom): string {
  return rng.weighted<() => string>([
    [5, () => rng.pick(INJECTION_STRINGS)],
    [3, () => rng.pick(UNICODE_STRINGS)],
    [1, () => hugeString(rng)],
    [1, () => `${rng.pick(INJECTION_STRINGS)}${rng.pick(UNICODE_STRINGS)}`],
  ])();
}

/** Numbers at and beyond every boundary a schema might have. */
export function boundaryNumber(rng: SeededRandom, schema: { minimum?: number; maximum?: number } = {}): number {
  const around: number[] = [];
  if (typeof schema.minimum === 'number') around.push(schema.minimum - 1, schema.minimum, schema.minimum - 0.5);
  if (typeof schema.maximum === 'number') around.push(schema.maximum + 1, schema.maximum, schema.maximum + 0.5);
  return rng.pick([...around, ...around, 0, -1, 1.5, -0.0001, 2 ** 31, 2 ** 31 - 1, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e308, -1e308, 5e-324, 65536, 99999]);
}

/** A value of some JSON type, often not the expected one. */
export function wrongTypeValue(rng: SeededRandom): unknown {
  return rng.pick<() => unknown>([
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 1e308,
    () => '',
    () => '123',
    () => 'true',
    () => [],
    () => [null],
    () => [hostileString(rng)],
    () => ({}),
    () => ({ $gt: '' }),
    () => ({ __proto__x: 1, constructor: { prototype: { polluted: 1 } } }),
    () => nested(rng.int(20, 200)),
    () => hostileString(rng),
    () => boundaryNumber(rng),
  ])();
}

function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Ids that are not ids: wrong prefix, wrong length, lower case, injections. */
export function malformedId(rng: SeededRandom, prefix: string): string {
  const body = '01J5ZZZZZZZZZZZZZZZZZZZZZZ';
  return rng.pick([
    `${prefix}_${body.slice(0, 25)}`,
    `${prefix}_${body}0`,
    `${prefix}_${body.toLowerCase()}`,
    `${prefix}_${body.slice(0, 25)}U`,
    `${prefix}_${body.slice(0, 25)}I`,
    `xyz_${body}`,
    `${prefix}${body}`,
    prefix,
    `${prefix}_`,
    `${prefix}_${body}`,
    `${prefix}_${body.slice(0, 24)}'--`,
    `${prefix}_${body.slice(0, 25)}\u0000`,
    '0',
    '-1',
    '1e3',
    'null',
    ' ',
    hostileString(rng),
  ]);
}
