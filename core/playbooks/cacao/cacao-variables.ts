import type { CacaoVariable } from './cacao-types.ts';

/**
 * Values and references between Rampart and CACAO variables. CACAO variables hold
 * strings (or null = unknown) typed by `type`; Rampart parameters hold JSON values. A
 * CACAO reference is `__name__:value`; Rampart's are `{{ parameters.name }}` (playbook
 * level) and `{{ name }}` (an action's template naming its own parameter).
 */

export const VARIABLE_KEY = /^__([a-zA-Z_][a-zA-Z0-9_-]{0,199})__$/;
const REFERENCE = /__([a-zA-Z_][a-zA-Z0-9_-]{0,199})__:value/g;

export const variableKey = (name: string): string => `__${name}__`;

/** A Rampart value as a CACAO variable: numbers and booleans as text, objects and arrays as JSON text (`dictionary`). */
export function toVariable(value: unknown, extra: Partial<CacaoVariable> = {}): CacaoVariable {
  if (value === null || value === undefined) return { type: 'string', value: null, ...extra };
  if (typeof value === 'boolean') return { type: 'bool', value: String(value), ...extra };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'float', value: String(value), ...extra };
  if (typeof value === 'string') return { type: 'string', value, ...extra };
  return { type: 'dictionary', value: JSON.stringify(value), ...extra };
}

/** A CACAO variable's value as Rampart holds it: typed by its `type` where the text allows. */
export function fromVariable(v: CacaoVariable): unknown {
  const raw = v.value;
  if (raw === null || raw === undefined) return null;
  switch (v.type) {
    case 'integer':
    case 'long':
    case 'float': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'bool':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'dictionary':
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}

/** The action parameter type a CACAO variable type maps to. */
export function parameterTypeOf(variableType: string | undefined): 'string' | 'integer' | 'number' | 'boolean' {
  if (variableType === 'integer' || variableType === 'long') return 'integer';
  if (variableType === 'float') return 'number';
  if (variableType === 'bool') return 'boolean';
  return 'string';
}

/** `{{ parameters.x }}` → `__x__:value` in every string leaf (a step parameter shown as a CACAO step variable). */
export function playbookRefsToCacao(text: string): string {
  return text.replace(/\{\{\s*parameters\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g, '__$1__:value');
}

/** `__x__:value` → `{{ parameters.x }}` for playbook variables; unknown names are reported. */
export function cacaoRefsToPlaybook(text: string, playbookVariables: ReadonlySet<string>, unknown: Set<string>): string {
  return text.replace(REFERENCE, (all, name: string) => {
    if (playbookVariables.has(name)) return `{{ parameters.${name} }}`;
    unknown.add(name);
    return all;
  });
}

/** `{{ name }}` (an action template's own parameter) → `__name__:value`. */
export function templateToCacao(text: string): string {
  return text.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, '__$1__:value');
}

/** `__name__:value` → `{{ name }}` (an imported action's template), collecting the names. */
export function cacaoToTemplate(text: string, names: Set<string>): string {
  return text.replace(REFERENCE, (_all, name: string) => {
    names.add(name);
    return `{{ ${name} }}`;
  });
}
