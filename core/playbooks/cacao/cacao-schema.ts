import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectPath } from '../../runtime/project-files.ts';
import { createRequire } from 'node:module';
import type AjvModule from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';

type AjvClass = typeof AjvModule.default;
import type { FieldProblem } from '../../errors.ts';

/**
 * The official OASIS CACAO v2 JSON schemas (resources/cacao-v2, a verbatim copy of
 * oasis-open/cacao-json-schemas), checked the way the schema authors' tooling does: two
 * passes. Pass 1: the playbook schema with a draft-07 validator (`strict: false`, so the
 * 2019-09 `unevaluatedProperties` the files also use is ignored, exactly as Python's
 * Draft7Validator does; enforcing it would reject every real command, because action.json
 * checks commands against the generic command-data.json only). Pass 2: each action
 * step's command against its own `commands/<type>.json`, which pass 1 never reaches (an
 * `http-api` command without `command` is caught here). A command type with no official
 * schema (CACAO's command types are an open vocabulary) is held to pass 1 only.
 */
const SCHEMA_DIR = projectPath('resources/cacao-v2/schemas');
const BASE = 'https://raw.githubusercontent.com/oasis-open/cacao-json-schemas/main/schemas/';
const MAX_PROBLEMS = 50;

// ajv (about 60 modules) is loaded with the first validation, not by every process that starts.
// It is CommonJS: its class is the module's `default` property.
const requireLazily = createRequire(import.meta.url);
const ajvClass = (): AjvClass => {
  const m = requireLazily('ajv') as { default?: AjvClass };
  return m.default ?? (m as unknown as AjvClass);
};

let compiled: { playbook: ValidateFunction; command: (type: string) => ValidateFunction | undefined } | null = null;

function validators() {
  if (compiled) return compiled;
  const ajv = new (ajvClass())({ strict: false, allErrors: true });
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.json')) ajv.addSchema(JSON.parse(readFileSync(path, 'utf8')));
    }
  };
  walk(SCHEMA_DIR);
  const playbook = ajv.getSchema(`${BASE}playbook.json`);
  if (!playbook) throw new Error('CACAO playbook schema missing from resources/cacao-v2');
  compiled = { playbook, command: (type) => (/^[a-z0-9-]+$/.test(type) ? ajv.getSchema(`${BASE}commands/${type}.json`) : undefined) };
  return compiled;
}

const describe = (prefix: string, e: ErrorObject): FieldProblem => ({
  field: `${prefix}${e.instancePath}` || '/',
  message: `${e.message ?? e.keyword}${e.keyword === 'additionalProperties' || e.keyword === 'enum' || e.keyword === 'const' ? ` ${JSON.stringify(e.params)}` : ''}`,
});

/** Pass 1 and pass 2; every problem with its JSON pointer (`/workflow/action--…/agent`), at most 50. */
export function cacaoSchemaProblems(doc: unknown): FieldProblem[] {
  const { playbook, command } = validators();
  const problems: FieldProblem[] = [];
  if (!playbook(doc)) problems.push(...(playbook.errors ?? []).map((e) => describe('', e)));
  const workflow = (doc as { workflow?: unknown } | null)?.workflow;
  if (workflow && typeof workflow === 'object') {
    for (const [stepId, step] of Object.entries(workflow as Record<string, unknown>)) {
      const commands = (step as { commands?: unknown } | null)?.commands;
      if (!Array.isArray(commands)) continue;
      commands.forEach((c, i) => {
        const type = (c as { type?: unknown } | null)?.type;
        const check = typeof type === 'string' ? command(type) : undefined;
        if (check && !check(c)) problems.push(...(check.errors ?? []).map((e) => describe(`/workflow/${stepId}/commands/${i}`, e)));
      });
    }
  }
  const unique = [...new Map(problems.map((p) => [`${p.field} ${p.message}`, p])).values()];
  return unique.slice(0, MAX_PROBLEMS);
}
