import type { SeededRandom } from './seeded-random.ts';
import type { JsonSchema, SchemaSampler } from './schema-sampler.ts';
import { hostileString, INJECTION_STRINGS, UNICODE_STRINGS, wrongTypeValue } from './hostile-values.ts';

export interface FuzzBody {
  payload: string | undefined;
  contentType: string | undefined;
  kind: string;
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json, text/plain',
  'text/csv',
  'application/octet-stream',
  ';;;',
  'application/jsonx',
  '',
];

const MALFORMED_JSON = [
  '{',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  '\ufeff{"a":1}',
  '{"a":"\\u00"}',
  '{"a":"\u0000"}',
  '{"a":"\\ud800"}',
  'nul\u0000l',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '\u0000',
  '   ',
  '{"a":1e999999}',
  '{"a":-}',
  '"\\x41"',
];

/** A JSON body for an operation: valid, one-field mutations, malformed JSON, wrong types and content types. */
export function fuzzJsonBody(rng: SeededRandom, sampler: SchemaSampler, schema: JsonSchema, known?: () => unknown): FuzzBody {
  const valid = () => (known && rng.chance(0.6) ? withRealIds(known(), sampler.valid(schema)) : sampler.valid(schema));
  const json = (value: unknown, kind: string): FuzzBody => ({ payload: JSON.stringify(value), contentType: 'application/json', kind });
  return rng.weighted<() => FuzzBody>([
    [12, () => json(valid(), 'valid')],
    [45, () => {
      let value = valid();
      for (let i = rng.int(1, 3); i > 0; i -= 1) value = sampler.mutate(value, schema);
      return json(value, 'mutated');
    }],
    [10, () => ({ payload: rng.pick(MALFORMED_JSON), contentType: 'application/json', kind: 'malformed_json' })],
    [4, () => {
      const text = JSON.stringify(valid());
      return { payload: `${text.slice(0, -1)},"__proto__":{"polluted":true}}`.replace(/^\{,/, '{'), contentType: 'application/json', kind: 'proto_key' };
    }],
    [9, () => ({ payload: JSON.stringify(valid()), contentType: rng.pick(WRONG_CONTENT_TYPES) || undefined, kind: 'wrong_content_type' })],
    [8, () => json(rng.pick<unknown>([[], [valid()], 'x', 1, null, true, hostileString(rng)]), 'wrong_top_level')],
    [4, () => ({ payload: '', contentType: 'application/json', kind: 'empty' })],
    [7, () => {
      const value = valid();
      const out: Record<string, unknown> = {};
      if (value && typeof value === 'object' && !Array.isArray(value)) for (const k of Object.keys(value)) out[k] = rng.chance(0.5) ? wrongTypeValue(rng) : hostileString(rng);
      return json(out, 'all_fields_hostile');
    }],
    [1, () => json({ ...(valid() as object), blob: 'A'.repeat(rng.pick([200_000, 1_100_000])) }, 'huge')],
  ])();
}

/** A bulk-import body (JSON or CSV, streamed by the route): hostile cells, broken quoting, wrong types. */
export function fuzzBulkBody(rng: SeededRandom): FuzzBody {
  const cell = () => rng.weighted<() => string>([
    [3, () => rng.pick(INJECTION_STRINGS)],
    [2, () => rng.pick(UNICODE_STRINGS)],
    [2, () => `10.99.${rng.int(0, 255)}.${rng.int(0, 255)}`],
    [1, () => rng.pick(['ip', 'domain', 'url', 'network', 'IP', ''])],
    [1, () => hostileString(rng)],
  ])();
  const quote = (v: string) => (rng.chance(0.8) ? `"${v.replace(/"/g, '""')}"` : v);
  const header = rng.pick(['name,type,tags', 'name,type', 'type,name,metadata', 'name', 'nom,type', '"name","type"', '', 'name,type,tags,extra']);
  const rows = Array.from({ length: rng.int(0, 6) }, () => Array.from({ length: rng.int(1, 4) }, () => quote(cell())).join(','));
  const csv = [header, ...rows].join(rng.pick(['\n', '\r\n', '\r']));
  const jsonItems = Array.from({ length: rng.int(0, 4) }, () => (rng.chance(0.7) ? { name: cell(), type: rng.pick(['ip', 'domain', 'network', 'x']), tags: [cell()] } : wrongTypeValue(rng)));
  return rng.weighted<() => FuzzBody>([
    [4, () => ({ payload: csv, contentType: 'text/csv', kind: 'csv' })],
    [1, () => ({ payload: `${csv}\n"unterminated`, contentType: 'text/csv', kind: 'csv_broken_quote' })],
    [3, () => ({ payload: JSON.stringify(rng.chance(0.7) ? jsonItems : { assets: jsonItems }), contentType: 'application/json', kind: 'json' })],
    [1, () => ({ payload: rng.pick(MALFORMED_JSON), contentType: 'application/json', kind: 'malformed_json' })],
    [1, () => ({ payload: csv, contentType: rng.pick(WRONG_CONTENT_TYPES) || undefined, kind: 'wrong_content_type' })],
  ])();
}

/** A known-valid body, with the id fields (asset_id, …) the schema sample filled with real ids. */
function withRealIds(known: unknown, sampled: unknown): unknown {
  if (!known || typeof known !== 'object' || !sampled || typeof sampled !== 'object') return known;
  const out: Record<string, unknown> = { ...(known as Record<string, unknown>) };
  for (const [k, v] of Object.entries(sampled as Record<string, unknown>)) if (k.endsWith('_id') && !(k in out)) out[k] = v;
  return out;
}
