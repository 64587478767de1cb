/**
 * An email notification's message, rendered from the action config
 * `{channel: 'email', to, cc?, subject, body_template}`: addresses and subject are
 * header material (one bare address each, no CR/LF), the body is plain text.
 */
import { ConfigError } from '../_lib/config-error.ts';
import { renderHeaderValue, renderTemplate, type TemplateVariables } from '../_lib/render-template.ts';
import { TemplateError } from '../_lib/template-error.ts';

export interface EmailMessage {
  to: string[];
  cc: string[];
  subject: string;
  text: string;
}

// One bare address: no display name, no list separators, no comments. A parameter that
// renders to "a@x, b@y" would otherwise add a recipient the action's author never chose.
const BARE_ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+$/;

/** An address that is not one bare address: the run fails `invalid_address`. */
export class InvalidAddress extends Error {
  readonly code = 'invalid_address';
}

function templatesOf(field: string, value: unknown, required: boolean): string[] {
  if (value === undefined || value === null) {
    if (required) throw new ConfigError(`an email notification needs config.${field}`);
    return [];
  }
  const list = Array.isArray(value) ? value : [value];
  if (list.some((v) => typeof v !== 'string') || (required && list.length === 0)) throw new ConfigError(`config.${field} must be a list of address templates`);
  return list as string[];
}

function addresses(field: string, templates: string[], vars: TemplateVariables): string[] {
  return templates.map((template, i) => {
    const address = renderHeaderValue(`${field}[${i}]`, template, vars).trim();
    if (!BARE_ADDRESS.test(address)) throw new InvalidAddress(`invalid_address: ${field}[${i}] is not one email address`);
    return address;
  });
}

/** Renders the message; throws ConfigError, TemplateError or InvalidAddress. */
export function renderEmail(config: Readonly<Record<string, unknown>>, vars: TemplateVariables): EmailMessage {
  if (typeof config.subject !== 'string') throw new ConfigError('an email notification needs config.subject');
  if (typeof config.body_template !== 'string') throw new ConfigError('an email notification needs config.body_template');
  const to = addresses('to', templatesOf('to', config.to, true), vars);
  const cc = addresses('cc', templatesOf('cc', config.cc, false), vars);
  const subject = renderHeaderValue('subject', config.subject, vars);
  if (subject.length > 998) throw new TemplateError('invalid_header_value', 'invalid_header_value: subject is longer than 998 characters');
  return { to, cc, subject, text: renderTemplate(config.body_template, vars, 'text') };
}
