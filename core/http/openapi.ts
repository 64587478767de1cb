import type { Server, RequestRoute } from '@hapi/hapi';
import type Joi from 'joi';
import joiToJson from 'joi-to-json';
import { errorSchema } from './error-schema.ts';
import { routeRateLimit } from './rate-limit-settings.ts';

type JsonSchema = Record<string, unknown>;

// joi-to-json is CommonJS (`module.exports = parse`) while its typings declare a default export.
const parseJoi = joiToJson as unknown as typeof joiToJson.parse;

function isDeepDefaultMarker(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && (value as { special?: unknown }).special === 'deep';
}

/**
 * joi describes an object's argument-less `.default()` ("build me from my keys'
 * defaults") as the marker `{special: 'deep'}`, which joi-to-json copies verbatim. Put
 * the object joi actually applies in its place: the defaults of its properties, nested
 * ones resolved first.
 */
function resolveDeepDefaults(node: unknown, isSchema = true): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveDeepDefaults(item));
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  // In a `properties` map every key is a property name (even one called `default`) and every value a schema.
  for (const [key, value] of Object.entries(node)) out[key] = isSchema && key === 'default' ? value : resolveDeepDefaults(value, !isSchema || key !== 'properties');
  if (isSchema && isDeepDefaultMarker(out.default)) {
    const properties = (out.properties ?? {}) as Record<string, JsonSchema>;
    out.default = Object.fromEntries(Object.entries(properties).filter(([, p]) => p.default !== undefined).map(([name, p]) => [name, p.default]));
  }
  return out;
}

const parse = (schema: Joi.Schema, type: 'open-api-3.1'): unknown => resolveDeepDefaults(parseJoi(schema, type));
type Operation = Record<string, unknown>;

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input (validation_failed, invalid_json, …)',
  401: 'Missing, unknown or expired token',
  403: 'The token lacks a required scope',
  404: 'Not found (also for other tenants\' records)',
  409: 'Conflict with the current state',
  410: 'Gone (e.g. an expired export file)',
  415: 'Unsupported Content-Type',
  413: 'Request body too large',
  429: 'Rate limited (see Retry-After)',
  503: 'Busy or unavailable; try again after Retry-After (e.g. server_busy: too many password hashes at once)',
  500: 'Unexpected error (no internals disclosed)',
};

/** Headers every rate-limited response carries (core/rate-limit/rate-limit-headers.ts). */
const RATE_LIMIT_HEADERS: Record<string, { description: string; schema: JsonSchema }> = {
  'X-RateLimit-Limit': { description: 'Size (burst) of the binding bucket: the most requests that can be made at once.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Whole requests left in the binding bucket now.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix time (seconds) when the binding bucket is full again.', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'IETF draft: every bucket that applied, e.g. `"standard";q=100;w=60;burst=20, "scan-create";q=10;w=60`.', schema: { type: 'string' } },
  RateLimit: { description: 'IETF draft: remaining (r) and seconds until the next request is allowed (t) per bucket.', schema: { type: 'string' } },
};
const headerRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

function isJoi(value: unknown): value is Joi.Schema {
  return typeof value === 'object' && value !== null && 'describe' in value && '$_root' in value;
}

function labelOf(schema: Joi.Schema): string | undefined {
  const label = (schema.describe() as { flags?: { label?: string } }).flags?.label;
  return label ? label.replace(/[^A-Za-z0-9_.-]/g, '_') : undefined;
}

/** Converts a joi schema; labelled ones become named components referenced by $ref. */
function schemaRef(schema: Joi.Schema, components: Record<string, JsonSchema>): JsonSchema {
  const json = parse(schema, 'open-api-3.1') as JsonSchema;
  const label = labelOf(schema);
  if (!label) return json;
  components[label] = json;
  return { $ref: `#/components/schemas/${label}` };
}

function parameters(schema: unknown, where: 'path' | 'query'): JsonSchema[] {
  if (!isJoi(schema)) return [];
  const json = parse(schema, 'open-api-3.1') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const { description, ...rest } = s as { description?: string };
    return { name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) };
  });
}

function operationId(method: string, path: string): string {
  const words = path.replace(/^\/api\//, '').split(/[/_.{}-]+/).filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function operation(route: RequestRoute, components: Record<string, JsonSchema>): Operation {
  const s = route.settings;
  const validate = s.validate as { params?: unknown; query?: unknown; payload?: unknown };
  const auth = s.auth as false | { access?: Array<{ scope?: { selection?: string[] } }> } | undefined;
  const scopes = auth ? (auth.access ?? []).flatMap((a) => a.scope?.selection ?? []) : [];
  const op: Operation = {
    operationId: operationId(route.method, route.path),
    summary: s.description,
    tags: (s.tags ?? []).filter((t) => t !== 'api'),
    parameters: [...parameters(validate.params, 'path'), ...parameters(validate.query, 'query')],
    responses: {} as Record<string, unknown>,
  };
  if (s.notes) op.description = Array.isArray(s.notes) ? s.notes.join('\n') : s.notes;
  if (auth === false) op.security = [];
  else if (scopes.length) op['x-required-scopes'] = scopes;
  if (isJoi(validate.payload)) {
    op.requestBody = { required: true, content: { 'application/json': { schema: schemaRef(validate.payload, components) } } };
  }
  const responses = op.responses as Record<string, unknown>;
  const limit = routeRateLimit(route);
  const limited = limit !== false;
  const conditional = typeof s.plugins?.rampart?.lastModified === 'function';
  const successHeaders = headerRefs([...(limited ? Object.keys(RATE_LIMIT_HEADERS) : []), ...(conditional ? ['Last-Modified'] : [])]);
  const withHeaders = (response: Record<string, unknown>) => (Object.keys(successHeaders).length ? { ...response, headers: successHeaders } : response);
  if (limit) {
    const burst = limit.burst && limit.burst !== limit.perMinute ? `, burst ${limit.burst}` : '';
    op['x-rate-limit'] = { key: limit.key, per_minute: limit.perMinute, ...(limit.burst ? { burst: limit.burst } : {}) };
    op.description = `${op.description ? `${op.description}\n\n` : ''}Rate limit: ${limit.perMinute} per minute${burst} for this endpoint ("${limit.key}"), besides the tier's budget.`;
  }
  if (conditional) {
    op.parameters = [
      ...(op.parameters as JsonSchema[]),
      { name: 'If-Modified-Since', in: 'header', required: false, schema: { type: 'string' }, description: 'HTTP date from an earlier Last-Modified: answered 304 without a body, and without spending a rate-limit token, when nothing changed since.' },
    ];
    responses['304'] = { description: 'Not modified since If-Modified-Since (no body, no token spent).', headers: headerRefs(['Last-Modified']) };
  }
  const status = (s.response as { status?: Record<string, unknown> } | undefined)?.status ?? {};
  for (const [code, schema] of Object.entries(status)) {
    // `true` marks a file or stream body whose format depends on the request (exports).
    responses[code] = withHeaders(
      Number(code) === 204
        ? { description: 'No content' }
        : !isJoi(schema)
          ? { description: 'File or stream', content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } }
          : { description: 'Success', content: { 'application/json': { schema: schemaRef(schema, components) } } },
    );
  }
  if (!Object.keys(status).length) responses['200'] = withHeaders({ description: 'Success' });
  const errors = limited ? [400, 429, 500] : [500];
  if (auth !== false) errors.push(401);
  if (scopes.length) errors.push(403);
  if (route.path.includes('{')) errors.push(404);
  if (isJoi(validate.payload)) errors.push(413);
  const extra = (s.plugins as { rampart?: { errors?: number[] } }).rampart?.errors ?? [];
  for (const code of [...new Set([...errors, ...extra])].sort()) {
    responses[String(code)] = { $ref: `#/components/responses/E${code}` };
  }
  return op;
}

/**
 * Builds the OpenAPI 3.1 document from the routes themselves (their joi schemas,
 * auth scopes, descriptions and notes), so it cannot drift from what is served.
 * Routes tagged `api` are documented.
 */
export function buildOpenApi(server: Server, version: string): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, Operation>> = {};
  const routes = server.table().filter((r) => (r.settings.tags ?? []).includes('api'));
  routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route, components);
  }
  const errorRef = schemaRef(errorSchema, components);
  const responses: Record<string, unknown> = {};
  for (const [code, text] of Object.entries(ERROR_TEXT)) {
    const headers = code === '429' ? headerRefs([...Object.keys(RATE_LIMIT_HEADERS), 'Retry-After']) : code === '503' ? headerRefs(['Retry-After']) : code === '500' ? {} : headerRefs(Object.keys(RATE_LIMIT_HEADERS));
    responses[`E${code}`] = { description: text, content: { 'application/json': { schema: errorRef } }, ...(Object.keys(headers).length ? { headers } : {}) };
  }
  const headers: Record<string, unknown> = {
    ...RATE_LIMIT_HEADERS,
    'Retry-After': { description: 'Seconds to wait before retrying (equals `error.retry_after`).', schema: { type: 'integer' } },
    'Last-Modified': { description: 'When the data last changed (HTTP date, whole seconds); send it back as If-Modified-Since.', schema: { type: 'string' } },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Rampart API',
      version,
      description: 'Security scanning and response platform. Every error uses one body: {status: "error", error: {code, message, ...}}.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components,
      responses,
      headers,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An opaque Rampart API token (rmp_…).' } },
    },
  };
}
