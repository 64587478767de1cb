import type { SeededRandom } from './seeded-random.ts';
import type { JsonSchema, SchemaSampler } from './schema-sampler.ts';
import type { FuzzWorld } from './fuzz-world.ts';
import { fuzzBulkBody, fuzzJsonBody } from './body-fuzz.ts';
import { hostileString, malformedId, wrongTypeValue } from './hostile-values.ts';
import { VALID_BODIES } from './valid-bodies.ts';

export interface Operation {
  method: string;
  path: string;
  op: JsonSchema;
}

export interface FuzzRequest {
  method: string;
  /** The document's path template. */
  operation: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** What was done to it, for the report and a failure's message. */
  kind: string;
}

const ID_PREFIX = /^\^([a-z]+)_\[/;

/** Every operation of the OpenAPI document, in document order. */
export function operationsOf(doc: JsonSchema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<JsonSchema>(doc.paths)) {
    for (const [method, op] of Object.entries<JsonSchema>(item)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

/** Builds one hostile (sometimes valid) request for an operation. */
export class RequestBuilder {
  constructor(
    private readonly rng: SeededRandom,
    private readonly sampler: SchemaSampler,
    private readonly world: FuzzWorld,
  ) {}

  async build(operation: Operation): Promise<FuzzRequest> {
    const kinds: string[] = [];
    const { method, path, op } = operation;
    const params: JsonSchema[] = op.parameters ?? [];

    let url = path;
    for (const param of params.filter((p) => p.in === 'path')) {
      const prefix = (param.schema?.pattern as string | undefined)?.match(ID_PREFIX)?.[1] ?? (path.startsWith('/api/credentials') ? 'cred' : 'x');
      const owner = this.rng.weighted<'own' | 'foreign' | 'malformed'>([[45, 'own'], [25, 'foreign'], [30, 'malformed']]);
      let id: string | undefined;
      if (owner === 'own' && method === 'DELETE') {
        // Never the fixture's own record: a fresh one (or, past a tenant limit, no real id).
        id = (await this.world.fresh(prefix)) ?? malformedId(this.rng, prefix);
      }
      if (owner !== 'malformed') id ??= this.#pickId(prefix, owner);
      id ??= malformedId(this.rng, prefix);
      kinds.push(`${param.name}:${owner}`);
      url = url.replace(`{${param.name}}`, this.#encodePathSegment(id));
    }

    const query = this.#query(path, params.filter((p) => p.in === 'query'), kinds);
    if (query) url += `?${query}`;

    const headers: Record<string, string> = {};
    const token = await this.#token(path, kinds);
    if (token) headers.authorization = token;
    if (this.rng.chance(0.05)) headers['x-request-id'] = this.rng.pick(['', 'a'.repeat(300), '../x', 'ünï', "' OR 1=1", '${x}', '{{x}}']);
    if (this.rng.chance(0.03) && method === 'GET') headers['if-modified-since'] = this.rng.pick(['yesterday', '0', 'Thu, 01 Jan 1970 00:00:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT', hostileString(this.rng).slice(0, 100)]);

    let payload: string | undefined;
    const jsonSchema = op.requestBody?.content?.['application/json']?.schema as JsonSchema | undefined;
    const body = path === '/api/assets/bulk' ? fuzzBulkBody(this.rng) : jsonSchema ? fuzzJsonBody(this.rng, this.sampler, jsonSchema, VALID_BODIES[`${method} ${path}`]) : undefined;
    if (body) {
      payload = path === '/api/agent/jobs/claim' ? withoutLongPoll(body.payload) : body.payload;
      if (body.contentType !== undefined) headers['content-type'] = body.contentType;
      kinds.push(`body:${body.kind}`);
    }
    return { method, operation: path, url, headers, payload, kind: kinds.join(' ') };
  }

  #pickId(prefix: string, owner: 'own' | 'foreign'): string | undefined {
    const pool = this.world.ids(prefix, owner);
    return pool.length ? this.rng.pick(pool) : undefined;
  }

  #encodePathSegment(id: string): string {
    return this.rng.weighted<() => string>([
      [90, () => percentEncode(id)],
      [3, () => `${percentEncode(id)}%00`],
      [2, () => `${percentEncode(id)}%zz`],
      [2, () => `..%2F${percentEncode(id)}`],
      [2, () => `${percentEncode(id)}%2F..%2F..`],
      [1, () => '%E0%A4%A'],
    ])();
  }

  #query(path: string, params: JsonSchema[], kinds: string[]): string {
    const pairs: Array<[string, string]> = [];
    const add = (name: string, value: unknown) => {
      if (Array.isArray(value)) for (const v of value) pairs.push([name, stringify(v)]);
      else if (value !== undefined) pairs.push([name, stringify(value)]);
    };
    // A valid request to the event stream would hold the connection open: it is only ever sent
    // malformed. (Another tenant's asset_id opens a stream that delivers nothing, by design:
    // test/reliability/isolation checks that live.)
    const stream = path === '/api/events/stream';
    const mode = stream ? 'stream' : this.rng.weighted<string>([[20, 'none'], [35, 'valid'], [45, 'mutated']]);
    if (mode === 'none') return '';
    for (const p of params) if (this.rng.chance(0.4)) add(p.name, this.sampler.valid(p.schema, p.name));
    if (mode === 'valid') {
      kinds.push('query:valid');
      return encode(pairs);
    }
    const target = stream ? params.find((p) => p.name === 'asset_id') : params.length ? this.rng.pick(params) : undefined;
    const idPrefix = (target?.schema?.pattern as string | undefined)?.match(ID_PREFIX)?.[1];
    const op = stream
      ? this.rng.pick(['unknown_key', 'malformed_id', 'hostile_events'])
      : this.rng.weighted<string>([[4, 'hostile'], [3, 'wrong_type'], [3, 'repeated'], [2, 'unknown_key'], [2, 'bracket_syntax'], [1, 'empty'], [idPrefix ? 4 : 0, 'foreign_id'], [idPrefix ? 3 : 0, 'malformed_id']]);
    kinds.push(`query:${op}`);
    const name = target?.name ?? 'q';
    const replace = (value: string) => {
      const i = pairs.findIndex(([k]) => k === name);
      if (i >= 0) pairs.splice(i, 1);
      pairs.push([name, value]);
    };
    switch (op) {
      case 'hostile':
        replace(hostileString(this.rng).slice(0, 5000));
        break;
      case 'wrong_type':
        replace(stringify(wrongTypeValue(this.rng)).slice(0, 5000));
        break;
      case 'repeated':
        pairs.push([name, stringify(this.sampler.valid(target?.schema, name))], [name, hostileString(this.rng).slice(0, 200)]);
        break;
      case 'unknown_key':
        pairs.push([this.rng.pick(['fuzz', 'tenant_id', '__proto__', 'constructor[prototype][x]', '', '$where']), '1']);
        break;
      case 'bracket_syntax':
        pairs.push([`${name}[]`, 'a'], [`${name}[x]`, 'b']);
        break;
      case 'empty':
        replace('');
        break;
      case 'foreign_id':
        replace(this.#pickId(idPrefix ?? 'ast', 'foreign') ?? malformedId(this.rng, idPrefix ?? 'ast'));
        break;
      case 'malformed_id': {
        let id = malformedId(this.rng, idPrefix ?? 'ast');
        // The stream only takes ids that cannot be valid (an unknown well-formed one opens a stream).
        while (stream && /^ast_[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) id = malformedId(this.rng, 'ast');
        replace(id);
        break;
      }
      case 'hostile_events':
        pairs.push(['events', this.rng.pick(['nope', 'finding.*,,', '*'.repeat(300), "' OR 1=1", '\u0000'])]);
        break;
    }
    return encode(pairs);
  }

  async #token(path: string, kinds: string[]): Promise<string | undefined> {
    const w = this.world;
    const natural = path === '/api/health' ? undefined : path.startsWith('/api/admin/') ? w.app.adminToken : path.startsWith('/api/agent/') ? w.agentToken : w.token;
    const choice = this.rng.weighted<string>([[88, 'natural'], [2, 'none'], [2, 'garbage'], [3, 'read_only'], [2, 'agent'], [2, 'tenant'], [1, 'admin']]);
    if (choice !== 'natural') kinds.push(`token:${choice}`);
    // A logout revokes the token it is sent with: never one of the world's own.
    if (path === '/api/user/auth/logout' && choice !== 'none' && choice !== 'garbage') return `Bearer ${await w.burnableToken()}`;
    if (choice === 'garbage') return this.rng.pick(['Bearer rmp_x', `Bearer rmp_${'A'.repeat(43)}`, 'Basic YTpi', 'Bearer', 'Bearer  ', "Bearer ' OR 1=1", 'bearer \u0000', `Bearer ${'x'.repeat(5000)}`]);
    const value = { natural, none: undefined, read_only: w.readOnlyToken, agent: w.agentToken, tenant: w.token, admin: w.app.adminToken }[choice];
    return value === undefined ? undefined : `Bearer ${value}`;
  }
}

function stringify(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

function encode(pairs: Array<[string, string]>): string {
  return pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&');
}

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) WTF-8 bytes instead of throwing. */
export function percentEncode(value: string): string {
  let out = '';
  for (const ch of value) {
    const cu = ch.charCodeAt(0);
    out += ch.length === 1 && cu >= 0xd800 && cu <= 0xdfff
      ? [0xed, 0x80 | ((cu >> 6) & 0x3f), 0x80 | (cu & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
      : encodeURIComponent(ch);
  }
  return out;
}

/**
 * An agent's claim is a long poll (default 25 s) that a valid body would really wait out:
 * the fuzzer asks for no wait instead, keeping every invalid variant as it was.
 */
function withoutLongPoll(payload: string | undefined): string | undefined {
  if (payload === undefined || payload.trim() === '') return '{"wait_seconds":0}';
  try {
    const value = JSON.parse(payload) as unknown;
    if (value === null) return '{"wait_seconds":0}';
    if (typeof value === 'object' && !Array.isArray(value)) {
      const wait = (value as { wait_seconds?: unknown }).wait_seconds;
      if (wait === undefined || (typeof wait === 'number' && wait > 0 && wait <= 30)) return JSON.stringify({ ...value, wait_seconds: 0 });
    }
  } catch {
    // not JSON: sent as it is
  }
  return payload;
}
