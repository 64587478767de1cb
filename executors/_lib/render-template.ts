/**
 * `{{ name }}` templates for executors that build requests and messages from action
 * parameters, escaped for where the text goes, so a parameter value (attacker-supplied
 * text from a finding, say) can never change the shape of what is sent:
 * - `json`: the template is a JSON document. Inside a string literal a value is inserted
 *   as escaped string content; standing alone it becomes the value's JSON encoding.
 * - `text`: plain text; header values additionally refuse CR, LF and NUL.
 * - `url`: each value is percent-encoded as one URL component.
 * - `form`: an `application/x-www-form-urlencoded` body; each value is percent-encoded, so
 *   it cannot add a parameter (`x&role=admin` stays one value).
 * - `xml`: each value is escaped as character data or attribute content (`& < > " '`), so
 *   it cannot add an element; a character XML 1.0 cannot carry fails.
 * A placeholder naming a missing variable is an error naming it, never an empty string.
 */
import type { ExecutorContext } from '../../core/plugin-api/index.ts';
import { TemplateError } from './template-error.ts';

export type TemplateContext = 'json' | 'text' | 'url' | 'form' | 'xml';
export type TemplateVariables = Readonly<Record<string, unknown>>;

// Anything between double braces is a placeholder; a name that is no variable (spaces,
// punctuation) then fails as missing, so a typo is never sent literally.
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const PLACEHOLDER_AT = /\{\{\s*([^{}]*?)\s*\}\}/y;
const WHOLE_PLACEHOLDER = /^\s*\{\{\s*([^{}]*?)\s*\}\}\s*$/;

/** The distinct variable names a template uses, in order of first use. */
export function placeholdersOf(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) if (!names.includes(m[1]!)) names.push(m[1]!);
  return names;
}

/**
 * The variables a run's templates see: the action parameters (secrets included), plus
 * `target` (the asset's value) and `asset_id` when the run targets an asset. A parameter
 * of the same name wins: the action's author chose it.
 */
export function templateVariables(ctx: Pick<ExecutorContext, 'params' | 'asset' | 'target'>): Record<string, unknown> {
  const assetVars: Record<string, unknown> = {};
  if (ctx.asset) assetVars.target = ctx.asset.value;
  const assetId = ctx.asset?.id ?? ctx.target;
  if (assetId) assetVars.asset_id = assetId;
  return { ...assetVars, ...ctx.params };
}

function lookup(vars: TemplateVariables, name: string): unknown {
  if (!Object.hasOwn(vars, name) || vars[name] === undefined) {
    throw new TemplateError('template_variable_missing', `template_variable_missing: ${name === '' ? '{{}}' : name}`);
  }
  return vars[name];
}

/** A value as text: strings as they are, other values as JSON (`42`, `true`, `["a","b"]`). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

// JSON.stringify leaves U+2028/U+2029 raw; they end a line in older JavaScript parsers.
const escapeSeparators = (s: string): string => s.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

function jsonStringContent(value: unknown): string {
  return escapeSeparators(JSON.stringify(textOf(value)).slice(1, -1));
}

function jsonValue(value: unknown): string {
  return escapeSeparators(JSON.stringify(value) ?? 'null');
}

function renderJson(template: string, vars: TemplateVariables): string {
  let out = '';
  let inString = false;
  let i = 0;
  while (i < template.length) {
    const ch = template[i]!;
    if (ch === '{' && template[i + 1] === '{') {
      PLACEHOLDER_AT.lastIndex = i;
      const m = PLACEHOLDER_AT.exec(template);
      if (m) {
        const value = lookup(vars, m[1]!);
        out += inString ? jsonStringContent(value) : jsonValue(value);
        i += m[0].length;
        continue;
      }
    }
    if (inString && ch === '\\') {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (ch === '"') inString = !inString;
    out += ch;
    i++;
  }
  try {
    JSON.parse(out);
  } catch {
    // The parser's message quotes the text, which may hold a secret: say only what failed.
    throw new TemplateError('invalid_template', 'invalid_template: the rendered template is not valid JSON');
  }
  return out;
}

function renderText(template: string, vars: TemplateVariables): string {
  return template.replace(PLACEHOLDER, (_, name: string) => textOf(lookup(vars, name)));
}

function renderUrl(template: string, vars: TemplateVariables): string {
  // A URL that is one placeholder is taken whole: a chat or webhook URL is often itself a
  // credential kept in the store. Anywhere else a value is one encoded component, so it
  // cannot change the scheme, host or path.
  const whole = WHOLE_PLACEHOLDER.exec(template);
  const out = whole ? textOf(lookup(vars, whole[1]!)) : template.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(textOf(lookup(vars, name))));
  let url: URL | null = null;
  try {
    url = /[\u0000-\u0020\u007f]/.test(out) ? null : new URL(out);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new TemplateError('invalid_template', 'invalid_template: the rendered URL is not an http(s) URL');
  }
  return out;
}

// encodeURIComponent leaves !'()* alone; a form decoder takes them as they are, but encoding them keeps a value opaque.
const formComponent = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// XML 1.0 Char: tab, LF, CR, and everything from U+0020 but the surrogates, U+FFFE and U+FFFF.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

function xmlText(value: unknown): string {
  const text = textOf(value);
  if (NOT_XML_CHAR.test(text)) throw new TemplateError('invalid_template', 'invalid_template: a value holds a character XML cannot carry');
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

/** Renders `template` for `context`; throws {@link TemplateError}. */
export function renderTemplate(template: string, vars: TemplateVariables, context: TemplateContext): string {
  if (context === 'json') return renderJson(template, vars);
  if (context === 'url') return renderUrl(template, vars);
  if (context === 'form') return template.replace(PLACEHOLDER, (_, name: string) => formComponent(textOf(lookup(vars, name))));
  if (context === 'xml') return template.replace(PLACEHOLDER, (_, name: string) => xmlText(lookup(vars, name)));
  return renderText(template, vars);
}

/** Renders a header value (`text`), refusing CR, LF and NUL: they would start a new header. */
export function renderHeaderValue(header: string, template: string, vars: TemplateVariables): string {
  const value = renderText(template, vars);
  if (/[\r\n\0]/.test(value)) {
    throw new TemplateError('invalid_header_value', `invalid_header_value: ${header} would contain CR, LF or NUL`);
  }
  return value;
}
