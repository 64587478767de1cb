import { PARAMETER_NAME_PATTERN } from './action-kinds.ts';

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;

/**
 * The `{{ name }}` placeholders of a template (whitespace inside the braces optional),
 * and any `{{ … }}` whose inside is not a name (which the renderer could not fill:
 * refused at registration rather than sent as text).
 */
export function placeholdersOf(template: string): { names: string[]; malformed: string[] } {
  const names: string[] = [];
  const malformed: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    const inner = m[1]!.trim();
    if (PARAMETER_NAME_PATTERN.test(inner)) {
      if (!names.includes(inner)) names.push(inner);
    } else {
      malformed.push(m[0]);
    }
  }
  return { names, malformed };
}

/** The template with every placeholder replaced by `value` (to check the form of a URL template). */
export function fillPlaceholders(template: string, value: string): string {
  return template.replace(PLACEHOLDER, value);
}

/** The template with each placeholder replaced by what `valueOf` answers for its name. */
export function replacePlaceholders(template: string, valueOf: (name: string) => string): string {
  return template.replace(PLACEHOLDER, (_, inner: string) => valueOf(inner.trim()));
}
