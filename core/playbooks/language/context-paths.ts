import { CONTEXT_ROOTS } from '../playbook-types.ts';

/**
 * Dotted paths into JSON data, shared by conditions and placeholders: `severity`,
 * `asset.tags.0`, `steps.scan.output.body.items`. Segments are letters, digits, `_` and
 * `-` (a digit-only segment indexes an array), so a path can never reach a prototype
 * member or need quoting.
 */
export const PATH_SYNTAX = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;
export const MAX_PATH_LENGTH = 256;

/** Null when the path is well-formed; otherwise why not. */
export function pathSyntaxProblem(path: string): string | null {
  if (path.length === 0) return 'is empty';
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  if (!PATH_SYNTAX.test(path)) return 'is not a dotted path of letters, digits, "_" and "-" (e.g. asset.tags or steps.s1.output.code)';
  return null;
}

/**
 * The value at `path`, or `found: false` when any segment is absent. Own properties only:
 * `constructor` or `__proto__` in a path find nothing rather than Object internals.
 */
export function resolvePath(data: unknown, path: string): { found: boolean; value: unknown } {
  let current: unknown = data;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment) || Number(segment) >= current.length) return { found: false, value: undefined };
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false, value: undefined };
    }
    if (current === undefined) return { found: false, value: undefined };
  }
  return { found: true, value: current };
}

/**
 * Null when a run-context path has a shape the engine can fill: a known root, `event`
 * followed by `kind` or `data`, `parameters` followed by a name, `steps` followed by a
 * step id and `status` or `output`. Whether the field exists is a run-time question.
 */
export function contextPathProblem(path: string): string | null {
  const syntax = pathSyntaxProblem(path);
  if (syntax) return syntax;
  const [root, second, third] = path.split('.');
  if (!(CONTEXT_ROOTS as readonly string[]).includes(root!)) {
    return `starts with the unknown root "${root}" (a path starts with ${CONTEXT_ROOTS.join(', ')})`;
  }
  if (root === 'event' && second !== undefined && second !== 'kind' && second !== 'data') {
    return `names "event.${second}": the event has only "kind" and "data"`;
  }
  if (root === 'parameters' && second === undefined) return 'names all parameters: name one, e.g. parameters.ip';
  if (root === 'steps') {
    if (second === undefined) return 'names all steps: name one, e.g. steps.s1.output';
    if (third !== undefined && third !== 'status' && third !== 'output') {
      return `names "steps.${second}.${third}": a step has only "status" and "output"`;
    }
  }
  return null;
}
