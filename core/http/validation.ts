import type { Request, ResponseToolkit } from '@hapi/hapi';
import { ValidationError, type FieldProblem } from '../errors.ts';

interface JoiDetail {
  path: Array<string | number>;
  message: string;
  type?: string;
  context?: { label?: string; name?: string; regex?: RegExp };
}

interface JoiLikeError extends Error {
  details?: JoiDetail[];
  output?: { payload?: { validation?: { source?: string } } };
}

/** Human text for a joi message: drop joi's quoting of the label. */
function clean(message: string): string {
  return message.replace(/"/g, '');
}

/**
 * joi's pattern messages quote the refused value ("secret with value … fails to match"),
 * and the value may be a secret (a webhook signing secret with a space in it): say which
 * rule failed without the value. Custom messages (no "with value") are kept as written.
 */
function messageOf(d: JoiDetail): string {
  if (!d.type?.startsWith('string.pattern') || !d.message.includes(' with value ')) return d.message;
  const label = d.context?.label ?? d.path.join('.');
  const rule = d.context?.name ? `the ${d.context.name} pattern` : `the pattern ${String(d.context?.regex)}`;
  return d.type.startsWith('string.pattern.invert') ? `${label} must not match ${rule}` : `${label} fails to match ${rule}`;
}

/**
 * Route validation failures (params, query, payload, headers) all become one 400
 * `validation_failed` with per-field details, e.g.
 * `{field: "per_page", location: "query", message: "per_page must be less than or equal to 100"}`.
 */
export async function validationFailAction(request: Request, _h: ResponseToolkit, err?: Error): Promise<never> {
  // A conditional GET's token is taken in the conditional step, which a 400 never reaches:
  // take it here, so invalid requests are charged like any other (an empty bucket's 429 wins).
  await request.server.plugins['rampart-rate-limit']?.chargeDeferred(request);
  const e = (err ?? new Error('invalid input')) as JoiLikeError;
  const location = e.output?.payload?.validation?.source ?? 'request';
  const details: (FieldProblem & { location: string })[] = (e.details ?? []).map((d) => ({
    field: d.path.length ? d.path.join('.') : location,
    location,
    message: clean(messageOf(d)),
  }));
  if (!details.length) details.push({ field: location, location, message: clean(e.message) });
  // One full stop at the end, whether or not the last detail (a custom message) brings its own.
  const text = details.map((d) => d.message).join('; ').replace(/\.+$/, '');
  throw new ValidationError(`Invalid request ${location}: ${text}.`, details);
}
