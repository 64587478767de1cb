import type { SeededRandom } from './seeded-random.ts';
import { boundaryNumber, hostileString, malformedId, wrongTypeValue } from './hostile-values.ts';

export type JsonSchema = Record<string, any>;
export type IdLookup = (prefix: string, owner: 'own' | 'foreign') => string | undefined;

const ID_PATTERN = /^\^([a-z]+)_\[0-9A-HJKMNP-TV-Z\]\{26\}\$$/;
const FAKE_ULID = '01J00000000000000000000000';

/** Values that satisfy common field names better than a blind pattern guess. */
const NAME_HINTS: Record<string, () => string> = {
  url: () => 'https://127.0.0.1:1/fuzz',
  target: () => 'https://127.0.0.1:1/fuzz',
  callback_url: () => 'https://127.0.0.1:1/cb',
  version: () => '9.0.0',
  cvss_vector: () => 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  cron: () => '0 3 * * *',
  timezone: () => 'UTC',
  email: () => 'fuzz@example.com',
  password: () => 'a long passphrase',
  host: () => '127.0.0.1',
  secret: () => 'fuzz-secret-0123456789abcdef',
  value: () => 'fuzz-credential-value',
  from: () => new Date(Date.now() - 86_400_000).toISOString(),
  to: () => new Date().toISOString(),
};

const STRING_CANDIDATES = ['fuzz', 'a', 'fuzz_1', 'fuzz-1', 'fuzz.1', 'Fuzz', 'x1', '1.0.0', '1', 'fuzz@example.com', 'example.com'];

/** Generates schema-valid values from the OpenAPI document, and one-field mutations of them. */
export class SchemaSampler {
  #counter = 0;

  constructor(
    private readonly doc: JsonSchema,
    private readonly rng: SeededRandom,
    private readonly ids: IdLookup,
  ) {}

  resolve(schema: JsonSchema | undefined): JsonSchema {
    let s = schema ?? {};
    for (let i = 0; i < 10 && typeof s.$ref === 'string'; i += 1) {
      const path = (s.$ref as string).replace(/^#\//, '').split('/');
      s = path.reduce<any>((node, key) => node?.[key], this.doc) ?? {};
    }
    return s;
  }

  valid(schema: JsonSchema | undefined, name = '', depth = 0): unknown {
    const s = this.resolve(schema);
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum) && s.enum.length) {
      const usable = s.enum.filter((v: unknown) => v !== null);
      return this.rng.pick(usable.length ? usable : s.enum);
    }
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives) && alternatives.length) return this.valid(this.rng.pick(alternatives), name, depth + 1);
    if (depth > 8) return null;
    const types: string[] = Array.isArray(s.type) ? s.type.filter((t: string) => t !== 'null') : s.type ? [s.type] : [];
    const type = types.length ? this.rng.pick(types) : s.properties ? 'object' : 'string';
    switch (type) {
      case 'object':
        return this.#validObject(s, depth);
      case 'array': {
        const min = s.minItems ?? 0;
        const max = Math.min(s.maxItems ?? min + 2, min + 2);
        const out: unknown[] = [];
        const n = this.rng.int(min, Math.max(min, max));
        for (let i = 0; i < n; i += 1) {
          const item = this.valid(s.items, name, depth + 1);
          if (s.uniqueItems && out.some((o) => JSON.stringify(o) === JSON.stringify(item))) continue;
          out.push(item);
        }
        return out;
      }
      case 'integer':
      case 'number': {
        if (typeof s.default === 'number') return s.default;
        const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
        const max = s.maximum ?? min + 100;
        return this.rng.int(Math.ceil(min), Math.floor(Math.min(max, min + 100)));
      }
      case 'boolean':
        return this.rng.chance(0.5);
      case 'null':
        return null;
      default:
        return this.#validString(s, name);
    }
  }

  #validObject(s: JsonSchema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set<string>(s.required ?? []);
    for (const [key, prop] of Object.entries<JsonSchema>(s.properties ?? {})) {
      if (key.startsWith('/')) continue; // joi-to-json copies pattern keys here too
      if (required.has(key) || this.rng.chance(0.5)) out[key] = this.valid(prop, key, depth + 1);
    }
    if (s.patternProperties && this.rng.chance(0.3)) out['X-Fuzz'] = 'fuzz';
    return out;
  }

  #validString(s: JsonSchema, name: string): string {
    const pattern = typeof s.pattern === 'string' ? s.pattern : undefined;
    const id = pattern?.match(ID_PATTERN);
    if (id) return this.ids(id[1], 'own') ?? `${id[1]}_${FAKE_ULID}`;
    if (s.format === 'date-time') return new Date().toISOString();
    if (s.format === 'uri') return 'https://example.com/fuzz';
    if (s.format === 'email') return 'fuzz@example.com';
    if (s.format === 'hostname') return 'example.com';
    this.#counter += 1;
    const candidates = [NAME_HINTS[name]?.(), name === 'name' ? `fuzz-${this.#counter}` : undefined, ...STRING_CANDIDATES].filter((c): c is string => c !== undefined);
    const fits = (c: string) => c.length >= (s.minLength ?? 0) && c.length <= (s.maxLength ?? Infinity) && (!pattern || safeTest(pattern, c));
    return candidates.find(fits) ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }

  /** A deep copy of `value` with one field (or the whole value) made wrong. */
  mutate(value: unknown, schema: JsonSchema | undefined): unknown {
    const root = { v: structuredClone(value) } as Record<string, any>;
    const slots: Array<{ parent: any; key: string | number; schema: JsonSchema }> = [];
    const walk = (parent: any, key: string | number, sch: JsonSchema, depth: number) => {
      slots.push({ parent, key, schema: sch });
      const node = parent[key];
      if (depth > 6 || node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) node.forEach((_, i) => walk(node, i, this.resolve(sch.items), depth + 1));
      else for (const k of Object.keys(node)) walk(node, k, this.resolve(sch.properties?.[k]), depth + 1);
    };
    walk(root, 'v', this.resolve(schema), 0);
    const slot = this.rng.pick(slots);
    const current = slot.parent[slot.key];
    const s = slot.schema;
    const idPrefix = typeof s.pattern === 'string' ? s.pattern.match(ID_PATTERN)?.[1] : undefined;
    const op = this.rng.weighted<string>([
      [3, 'wrong_type'],
      [3, 'hostile_string'],
      [idPrefix ? 6 : 0, 'id'],
      [s.type === 'integer' || s.type === 'number' ? 4 : 0, 'boundary'],
      [typeof s.maxLength === 'number' ? 2 : 0, 'too_long'],
      [current && typeof current === 'object' && !Array.isArray(current) ? 2 : 0, 'unknown_key'],
      [current && typeof current === 'object' && !Array.isArray(current) && Object.keys(current).length ? 2 : 0, 'drop_key'],
      [Array.isArray(s.enum) ? 2 : 0, 'enum_near_miss'],
    ]);
    switch (op) {
      case 'wrong_type':
        slot.parent[slot.key] = wrongTypeValue(this.rng);
        break;
      case 'hostile_string':
        slot.parent[slot.key] = hostileString(this.rng);
        break;
      case 'id':
        slot.parent[slot.key] = this.rng.chance(0.5) ? (this.ids(idPrefix!, 'foreign') ?? malformedId(this.rng, idPrefix!)) : malformedId(this.rng, idPrefix!);
        break;
      case 'boundary':
        slot.parent[slot.key] = boundaryNumber(this.rng, s);
        break;
      case 'too_long':
        slot.parent[slot.key] = 'é'.repeat((s.maxLength as number) + 1);
        break;
      case 'unknown_key':
        // defineProperty, so `__proto__` becomes an own key that JSON.stringify sends.
        Object.defineProperty(current, this.rng.pick(['unknown', '__proto__', 'constructor', 'tenant_id', 'id', '$where', '']), { value: wrongTypeValue(this.rng), enumerable: true, writable: true, configurable: true });
        break;
      case 'drop_key':
        delete current[this.rng.pick(Object.keys(current))];
        break;
      case 'enum_near_miss': {
        const base = String(this.rng.pick(s.enum as unknown[]));
        slot.parent[slot.key] = this.rng.pick([base.toUpperCase(), `${base} `, `${base}\u0000`, `${base}x`, base.slice(1)]);
        break;
      }
    }
    return root.v;
  }
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    try {
      return new RegExp(pattern).test(value);
    } catch {
      return false;
    }
  }
}
