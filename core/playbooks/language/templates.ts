import { contextPathProblem, resolvePath } from './context-paths.ts';
import { forEachString, mapStrings, tokensOf, wholePlaceholder } from './placeholders.ts';

/** What placeholders and condition-step paths read during a run. */
export interface RunContext {
  /** The triggering event; null for a run started by hand. */
  event: { kind: string; data: unknown } | null;
  /** On finding events (`finding.*` kinds): the finding as the event carries it; otherwise null. */
  finding: Record<string, unknown> | null;
  /** The run's target asset, else the event's asset; null when there is neither. */
  asset: Record<string, unknown> | null;
  /** The playbook's defaults overridden by the run's parameters. */
  parameters: Record<string, unknown>;
  /** Steps that have ended, by id. */
  steps: Record<string, { status: string; output: unknown }>;
}

export interface StaticPlaceholderOptions {
  stepIds: string[];
  /** The steps guaranteed to have run before a step (stepsBefore). */
  earlierStepIds: (stepId: string) => string[];
  triggerEvent: string;
  /**
   * The playbook's declared parameters; null when it declares none (the spec's playbook
   * has no declaration): then any `parameters.<name>` is accepted here, and a run that
   * lacks the value fails that step naming it (missingParameterError).
   */
  parameterNames: string[] | null;
  /**
   * The step whose parameters these are. Without it `steps.<id>` is only checked to name
   * an existing step, not that it runs earlier.
   */
  stepId?: string;
}

/** Every distinct placeholder path in the string leaves of a JSON value, in order of first use. */
export function placeholdersIn(value: unknown): string[] {
  const paths = new Set<string>();
  forEachString(value, (text) => {
    for (const t of tokensOf(text)) if (t.kind === 'placeholder') paths.add(t.path);
  });
  return [...paths];
}

const isFindingEvent = (kind: string): boolean => kind.startsWith('finding.');

/** Null when the engine can fill `path` for this step; otherwise why it never could. */
function pathProblem(path: string, opts: StaticPlaceholderOptions): string | null {
  const shape = contextPathProblem(path);
  if (shape) return `the path ${shape}`;
  const [root, second] = path.split('.');
  if (root === 'finding' && !isFindingEvent(opts.triggerEvent)) {
    return `there is no finding: the trigger event "${opts.triggerEvent}" is not a finding event (finding.new, finding.status_changed)`;
  }
  if (root === 'event' && opts.triggerEvent === 'manual') return 'there is no event: the playbook is only run by hand (trigger "manual")';
  if (root === 'parameters' && opts.parameterNames !== null && !opts.parameterNames.includes(second!)) {
    return `the parameter "${second}" is not declared in the playbook's parameters`;
  }
  if (root === 'steps') {
    if (!opts.stepIds.includes(second!)) return `there is no step "${second}"`;
    if (opts.stepId !== undefined) {
      if (second === opts.stepId) return `step "${second}" cannot read its own output`;
      if (!opts.earlierStepIds(opts.stepId).includes(second!)) {
        return `step "${second}" does not run before step "${opts.stepId}" on every path (it is on another branch, or after it)`;
      }
    }
  }
  return null;
}

/**
 * One message per placeholder the engine could never fill, and per malformed `{{ … }}`,
 * each naming the placeholder, where it sits in the value and why.
 */
export function staticPlaceholderProblems(value: unknown, opts: StaticPlaceholderOptions): string[] {
  const problems: string[] = [];
  forEachString(value, (text, at) => {
    const where = at ? ` in ${at}` : '';
    for (const t of tokensOf(text)) {
      if (t.kind === 'malformed') problems.push(`malformed placeholder "${t.raw}"${where}: ${t.reason}`);
      else {
        const problem = pathProblem(t.path, opts);
        if (problem) problems.push(`"{{ ${t.path} }}"${where}: ${problem}`);
      }
    }
  });
  return problems;
}

function lookup(context: RunContext, path: string): { found: boolean; value: unknown } {
  const root = path.split('.')[0]!;
  // A root the run does not have (no event, no finding, no asset) fills nothing.
  if (!Object.hasOwn(context, root) || context[root as keyof RunContext] === null) return { found: false, value: undefined };
  return resolvePath(context, path);
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Fills every placeholder of a JSON value. A string that is exactly one placeholder
 * becomes the value itself (a number stays a number, an object an object); a placeholder
 * inside longer text is replaced by the value's text (JSON text for non-strings). Values
 * are inserted as data, never parsed, so quotes or newlines in them cannot change the
 * shape of the parameters. A path that is absent is listed in `missing` and its
 * placeholder left as written (never replaced by an empty string).
 */
export function renderParameters(value: unknown, context: RunContext): { value: unknown; missing: string[] } {
  const missing = new Set<string>();
  const rendered = mapStrings(value, (text) => {
    const whole = wholePlaceholder(text);
    if (whole !== null) {
      const hit = lookup(context, whole);
      if (!hit.found) return missing.add(whole), text;
      return structuredClone(hit.value);
    }
    let out = '';
    let last = 0;
    for (const t of tokensOf(text)) {
      if (t.kind !== 'placeholder') continue;
      const hit = lookup(context, t.path);
      out += text.slice(last, t.start) + (hit.found ? asText(hit.value) : t.raw);
      if (!hit.found) missing.add(t.path);
      last = t.end;
    }
    return out + text.slice(last);
  });
  return { value: rendered, missing: [...missing] };
}

/** The `parameters.<name>` placeholders among a render's missing paths: their names. */
export function missingParameterNames(missing: string[]): string[] {
  return [...new Set(missing.filter((p) => p.startsWith('parameters.')).map((p) => p.split('.')[1]!))];
}

/**
 * The step error of a render that lacks values: `missing_parameter` naming what to pass
 * when run parameters are missing (a playbook that declares none has no defaults to fall
 * back on), else `missing_placeholder` naming the paths.
 */
export function missingValuesError(stepId: string, missing: string[]): { code: string; message: string; placeholders: string[]; parameters?: string[] } {
  const names = missingParameterNames(missing);
  const list = missing.map((m) => `{{ ${m} }}`).join(', ');
  if (names.length) {
    const pass = names.map((n) => `"${n}"`).join(', ');
    return { code: 'missing_parameter', message: `Step ${stepId}: no value for ${list}: pass ${pass} in the run's "parameters" (or declare a default in the playbook's "parameters").`, placeholders: missing, parameters: names };
  }
  return { code: 'missing_placeholder', message: `Step ${stepId}: no value for ${list}.`, placeholders: missing };
}
