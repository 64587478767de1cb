import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Every error code the API can answer with must be in docs/api.md's error-code list, so a
// client author can handle it. The codes are read from the source: the code argument of
// every `new …Error(…)` of core/errors.ts and every `code: '…'` the HTTP edge sets itself.

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_DIRS = ['core', 'plugins', 'executors', 'scanners', 'config'];

/** Which argument (0-based) of each error class is the code, and its default code. */
const CODE_ARGUMENT: Record<string, { index: number; fallback: string | null }> = {
  RampartError: { index: 1, fallback: null },
  ValidationError: { index: 2, fallback: 'validation_failed' },
  InputError: { index: 1, fallback: 'invalid_input' },
  UnauthorizedError: { index: 1, fallback: 'unauthorized' },
  ForbiddenError: { index: 1, fallback: 'forbidden' },
  NotFoundError: { index: 1, fallback: 'not_found' },
  ConflictError: { index: 1, fallback: 'conflict' },
};
const FIXED_CODES = ['payload_too_large', 'rate_limited', 'service_unavailable'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The top-level arguments of the call whose '(' is at `open`, as source text. */
function callArguments(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < source.length; i += 1) {
    const c = source[i]!;
    if (c === '\'' || c === '"' || c === '`') {
      // Skip a string literal (template expressions hold no top-level commas of the call).
      for (i += 1; i < source.length && source[i] !== c; i += 1) if (source[i] === '\\') i += 1;
    } else if (c === '(' || c === '[' || c === '{') {
      depth += 1;
    } else if (c === ')' || c === ']' || c === '}') {
      depth -= 1;
      if (depth === 0) {
        args.push(source.slice(start, i).trim());
        return args.filter((a) => a !== '');
      }
    } else if (c === ',' && depth === 1) {
      args.push(source.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

function codesInSource(): Map<string, string> {
  const codes = new Map<string, string>(FIXED_CODES.map((c) => [c, 'core/errors.ts']));
  for (const file of SOURCE_DIRS.flatMap((d) => sourceFiles(join(ROOT, d)))) {
    const source = readFileSync(file, 'utf8');
    const where = relative(ROOT, file);
    for (const match of source.matchAll(/new (\w+Error)\(/g)) {
      const rule = CODE_ARGUMENT[match[1]!];
      if (!rule) continue;
      const arg = callArguments(source, match.index! + match[0].length - 1)[rule.index];
      const literal = arg?.match(/^'([a-z][a-z0-9_]*)'$/)?.[1];
      const code = literal ?? (arg === undefined ? rule.fallback : null);
      if (code && !codes.has(code)) codes.set(code, where);
    }
  }
  // The edge's own codes (joi and hapi errors turned into the one error shape).
  for (const file of ['core/http/error-response.ts', 'core/http/validation.ts', 'core/http/auth-scheme.ts']) {
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/\bcode: '([a-z][a-z0-9_]*)'/g)) {
      if (!codes.has(match[1]!)) codes.set(match[1]!, file);
    }
  }
  return codes;
}

test('every error code the source can answer with is in docs/api.md', (t) => {
  const docs = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const codes = codesInSource();
  t.true(codes.size > 60, `only ${codes.size} codes found: the extraction broke`);
  const missing = [...codes].filter(([code]) => !docs.includes(`\`${code}\``)).map(([code, file]) => `${code} (${file})`);
  t.deepEqual(missing, [], 'add these codes to the error-code list of docs/api.md');
});

test('the extraction finds codes passed as arguments, not only defaults', (t) => {
  const codes = codesInSource();
  for (const known of ['approvals_unavailable', 'export_too_large', 'scan_in_progress', 'invalid_cvss_vector', 'not_found', 'validation_failed']) {
    t.true(codes.has(known), known);
  }
});
