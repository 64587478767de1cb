import type { ExecutionContext } from 'ava';

/**
 * What a spec-only client relies on: the fields the API specification shows for a
 * response, each present with the type the spec gives. Extra fields Rampart adds are
 * allowed (a client ignores what it does not know); missing or retyped ones fail.
 */
export type SpecType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'string|null' | 'integer|null' | 'timestamp' | 'timestamp|null';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function holds(value: unknown, type: SpecType): boolean {
  const [main, orNull] = type.split('|') as [string, string | undefined];
  if (value === null) return orNull === 'null';
  switch (main) {
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number';
    case 'array': return Array.isArray(value);
    case 'object': return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'timestamp': return typeof value === 'string' && ISO.test(value);
    default: return typeof value === main;
  }
}

/** Asserts each spec field of `record` is present with its spec type. */
export function specFields(t: ExecutionContext, record: unknown, fields: Record<string, SpecType>, what: string): void {
  t.truthy(record && typeof record === 'object', `${what}: not an object: ${JSON.stringify(record)}`);
  const r = record as Record<string, unknown>;
  for (const [name, type] of Object.entries(fields)) {
    t.true(Object.hasOwn(r, name), `${what}: the spec field "${name}" is missing: ${JSON.stringify(r).slice(0, 400)}`);
    t.true(holds(r[name], type), `${what}.${name}: ${JSON.stringify(r[name])} is not ${type}`);
  }
}

/** The spec's list meta: `{total, page, per_page}` and, where the spec shows it, `total_pages`. */
export function specListMeta(t: ExecutionContext, body: any, what: string, withTotalPages = false): void {
  t.true(Array.isArray(body?.data), `${what}: data is not a list`);
  specFields(t, body?.meta, { total: 'integer', page: 'integer', per_page: 'integer', ...(withTotalPages ? { total_pages: 'integer' as const } : {}) }, `${what}.meta`);
}

/** A documented 4xx a spec-only client can act on: the one error shape, a code, and a message that says what to do. */
export function saysWhatToAdd(t: ExecutionContext, res: { statusCode: number; body: any; raw: string }, status: number, code: string, mentions: RegExp): void {
  t.is(res.statusCode, status, res.raw);
  t.is(res.body?.status, 'error');
  t.is(res.body?.error?.code, code, res.raw);
  t.regex(String(res.body?.error?.message), mentions);
}
