import test from 'ava';
import { coerceError, errorMessage, toError } from '../../../core/work/coerce-error.ts';
import { OutboundError } from '../../../core/outbound/outbound-error.ts';

test('an Error keeps its message, stack and string code', (t) => {
  const err = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
  const c = coerceError(err);
  t.is(c.message, 'connection refused');
  t.is(c.code, 'ECONNREFUSED');
  t.truthy(c.stack);
  t.is(c.cause, err);
  t.false('code' in coerceError(Object.assign(new Error('x'), { code: 1213 })), 'numeric codes are not codes');
});

test('thrown strings, plain objects and nothing at all become a message', (t) => {
  t.like(coerceError('boom'), { message: 'boom', cause: 'boom' });
  t.like(coerceError({ message: 'rejected', code: 'E_X' }), { message: 'rejected', code: 'E_X' });
  t.is(coerceError({ status: 500 }).message, '{"status":500}');
  t.is(coerceError(undefined).message, 'undefined');
  t.is(coerceError(null).message, 'null');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  t.is(coerceError(cyclic).message, '[object Object]');
});

test('toError keeps Errors and wraps anything else; errorMessage cuts to a column', (t) => {
  const err = new OutboundError('timeout', 'The request timed out.');
  t.is(toError(err), err);
  const wrapped = toError('plain');
  t.true(wrapped instanceof Error);
  t.is(wrapped.message, 'plain');
  t.is(wrapped.cause, 'plain');
  t.is(errorMessage(new Error('x'.repeat(500)), 300).length, 300);
  t.is(errorMessage(42), '42');
});
