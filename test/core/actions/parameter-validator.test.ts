import test from 'ava';
import type { ParameterSpec } from '../../../core/actions/action-version.ts';
import { validateParameterSpecs } from '../../../core/actions/parameter-specs.ts';
import { validateParameters } from '../../../core/actions/parameter-validator.ts';
import { ValidationError } from '../../../core/errors.ts';

const SPECS: ParameterSpec[] = [
  { name: 'ip', type: 'string', required: true, validation: { pattern: '\\d{1,3}(\\.\\d{1,3}){3}' } },
  { name: 'duration_hours', type: 'integer', required: false, default: 24, validation: { min: 1, max: 720 } },
  { name: 'ratio', type: 'number', required: false, validation: { min: 0, max: 1 } },
  { name: 'notify', type: 'boolean', required: false, default: false },
  { name: 'tags', type: 'string[]', required: false, validation: { max: 3, pattern: '[a-z]+' } },
  { name: 'comment', type: 'string', required: false, validation: { min: 2, max: 5 } },
  { name: 'api_key', type: 'secret', required: true, credential: 'fw_key' },
  { name: 'token', type: 'secret', required: false },
];

function details(fn: () => unknown): Record<string, string> {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return Object.fromEntries((err.extra.details as Array<{ field: string; message: string }>).map((d) => [d.field, d.message]));
    throw err;
  }
  throw new Error('no ValidationError');
}

test('valid input: defaults applied, secrets mapped to their credentials, values copied', (t) => {
  const tags = ['a', 'b'];
  const out = validateParameters(SPECS, { ip: '10.0.0.1', ratio: 0.5, tags });
  t.deepEqual(out.values, { ip: '10.0.0.1', duration_hours: 24, ratio: 0.5, notify: false, tags: ['a', 'b'] });
  t.deepEqual(out.secrets, { api_key: 'fw_key', token: 'token' });
  tags.push('c');
  t.deepEqual(out.values.tags, ['a', 'b'], 'a copy, not the caller\'s array');
});

test('every bad value gets its own detail naming parameters.<name>', (t) => {
  const d = details(() =>
    validateParameters(SPECS, {
      ip: '10.0.0.1; rm -rf /',
      duration_hours: 721,
      ratio: '0.5',
      notify: 'yes',
      tags: ['ok', 'NO'],
      comment: 'x',
      api_key: 'sent-by-caller',
      extra: 1,
    }),
  );
  t.deepEqual(Object.keys(d).sort(), ['parameters.api_key', 'parameters.comment', 'parameters.duration_hours', 'parameters.extra', 'parameters.ip', 'parameters.notify', 'parameters.ratio', 'parameters.tags']);
  t.regex(d['parameters.ip']!, /pattern/);
  t.regex(d['parameters.duration_hours']!, /at most 720/);
  t.regex(d['parameters.ratio']!, /number/);
  t.regex(d['parameters.notify']!, /boolean/);
  t.regex(d['parameters.tags']!, /item/);
  t.regex(d['parameters.comment']!, /at least 2 characters/);
  t.regex(d['parameters.api_key']!, /credential store/);
  t.regex(d['parameters.extra']!, /not a parameter/);
});

test('required, types, lengths and the input cap', (t) => {
  t.deepEqual(Object.keys(details(() => validateParameters(SPECS, {}))), ['parameters.ip']);
  t.regex(details(() => validateParameters(SPECS, { ip: null }))['parameters.ip']!, /string/);
  t.regex(details(() => validateParameters(SPECS, { ip: '1.1.1.1', duration_hours: 1.5 }))['parameters.duration_hours']!, /integer/);
  t.regex(details(() => validateParameters(SPECS, { ip: '1.1.1.1', tags: ['a', 'b', 'c', 'd'] }))['parameters.tags']!, /at most 3 items/);
  t.regex(details(() => validateParameters(SPECS, { ip: '1.1.1.1', tags: 'a' }))['parameters.tags']!, /array of strings/);
  t.regex(details(() => validateParameters(SPECS, { ip: '1'.repeat(4097) }))['parameters.ip']!, /4096/);
  t.regex(details(() => validateParameters(SPECS, { ip: '1.1.1.1', ratio: Number.NaN }))['parameters.ratio']!, /number/);
  t.is(validateParameters(SPECS, { ip: '1.1.1.1', comment: 'abcde' }).values.comment, 'abcde');
});

test('pattern is a full match', (t) => {
  const specs: ParameterSpec[] = [{ name: 'code', type: 'string', required: true, validation: { pattern: '[A-Z]{2}' } }];
  t.notThrows(() => validateParameters(specs, { code: 'AB' }));
  t.throws(() => validateParameters(specs, { code: 'xABx' }), { instanceOf: ValidationError });
  t.throws(() => validateParameters(specs, { code: 'AB\nAB' }), { instanceOf: ValidationError });
});

test('spec registration: names, types, defaults, bounds, secrets and unsafe patterns', (t) => {
  const d = details(() =>
    validateParameterSpecs([
      { name: 'ok', type: 'string', required: true },
      { name: 'ok', type: 'string', required: false },
      { name: '9bad', type: 'string', required: false },
      { name: 'target', type: 'string', required: false },
      { name: 'kind', type: 'json' as never, required: false },
      { name: 'n', type: 'integer', required: false, default: 'ten' },
      { name: 'm', type: 'integer', required: false, validation: { min: 5, max: 1 } },
      { name: 's', type: 'secret', required: false, default: 'hunter22' },
      { name: 'p', type: 'string', required: false, validation: { pattern: '(a+)+$' } },
      { name: 'q', type: 'integer', required: false, validation: { pattern: '\\d+' } },
      { name: 'c', type: 'string', required: false, credential: 'x' },
      { name: 'k', type: 'secret', required: false, credential: 'bad name!' },
      { name: 'dflt', type: 'integer', required: false, default: 800, validation: { max: 720 } },
    ]),
  );
  t.deepEqual(Object.keys(d).sort(), [
    'parameters.1.name', 'parameters.10.credential', 'parameters.11.credential', 'parameters.12.default', 'parameters.2.name', 'parameters.3.name',
    'parameters.4.type', 'parameters.5.default', 'parameters.6.validation', 'parameters.7.default', 'parameters.8.validation.pattern', 'parameters.9.validation.pattern',
  ]);
  t.regex(d['parameters.3.name']!, /reserved/);
  t.regex(d['parameters.8.validation.pattern']!, /nested repetition/);
  t.deepEqual(validateParameterSpecs([{ name: 'a', type: 'boolean' } as ParameterSpec]), [{ name: 'a', type: 'boolean', required: false }]);
});
