import { readFileSync } from 'node:fs';
import { projectPath } from '../runtime/project-files.ts';
import { createRequire } from 'node:module';
import type AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { jsonPath, type PathPart } from './json-path.ts';

type AjvClass = typeof AjvModule.default;

/**
 * The official OASIS SARIF 2.1.0 schema (resources/sarif, a verbatim copy), compiled once.
 * It is a draft-04 schema and ajv speaks draft-07: the two agree on every keyword the file
 * uses, so the root `id` is handed over as `$id` and nothing else changes. Formats are
 * checked too (ajv ships none): `date-time` as RFC 3339, `uri` as an absolute URI and
 * `uri-reference` as text without whitespace or control characters (what RFC 3986 forbids
 * and tools get wrong most: Windows paths with spaces).
 *
 * Large files are validated in pieces (sarif-reader.ts): each `runs[i].results[j]` against
 * `#/definitions/result` as it streams past, and the rest of the document, with those
 * arrays left empty, against the whole schema at the end. Together that is the whole
 * schema: nothing in it relates a result to its siblings.
 */
const SCHEMA_FILE = projectPath('resources/sarif/sarif-schema-2.1.0.json');
const MAX_PROBLEMS = 20;

// ajv (about 60 modules) is loaded with the first validation, not by every process that starts.
// It is CommonJS: its class is the module's `default` property.
const requireLazily = createRequire(import.meta.url);
const ajvClass = (): AjvClass => {
  const m = requireLazily('ajv') as { default?: AjvClass };
  return m.default ?? (m as unknown as AjvClass);
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s\u0000-\u001f\u007f]*$/;
const URI_REFERENCE = /^[^\s\u0000-\u001f\u007f]*$/;

let compiled: { document: ValidateFunction; result: ValidateFunction } | null = null;

function validators(): { document: ValidateFunction; result: ValidateFunction } {
  if (compiled) return compiled;
  const raw = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown> & { id: string };
  const { id, $schema: _draft04, ...rest } = raw;
  const ajv = new (ajvClass())({ strict: false, allErrors: false, validateFormats: true });
  ajv.addFormat('date-time', (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))));
  ajv.addFormat('uri', (s: string) => ABSOLUTE_URI.test(s));
  ajv.addFormat('uri-reference', (s: string) => URI_REFERENCE.test(s));
  ajv.addSchema({ ...rest, $id: id });
  const document = ajv.getSchema(id);
  const result = ajv.getSchema(`${id}#/definitions/result`);
  if (!document || !result) throw new Error('SARIF schema missing from resources/sarif');
  compiled = { document, result };
  return compiled;
}

export interface SchemaProblem {
  path: string;
  message: string;
}

function describe(base: readonly PathPart[], e: ErrorObject): SchemaProblem {
  const parts: PathPart[] = [...base, ...e.instancePath.split('/').slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')))];
  const detail = e.keyword === 'additionalProperties' ? ` ("${String((e.params as { additionalProperty?: string }).additionalProperty)}")`
    : e.keyword === 'enum' ? ` (${((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')})`
      : '';
  return { path: jsonPath(parts), message: `${e.message ?? e.keyword}${detail}` };
}

function problems(check: ValidateFunction, value: unknown, base: readonly PathPart[]): SchemaProblem[] {
  if (check(value)) return [];
  return (check.errors ?? []).slice(0, MAX_PROBLEMS).map((e) => describe(base, e));
}

/** Schema problems of the whole document (or of its skeleton with the result arrays emptied). */
export function sarifDocumentProblems(doc: unknown): SchemaProblem[] {
  return problems(validators().document, doc, []);
}

/** Schema problems of one result, at `path` (e.g. ['runs', 0, 'results', 7]). */
export function sarifResultProblems(result: unknown, path: readonly PathPart[]): SchemaProblem[] {
  return problems(validators().result, result, path);
}
