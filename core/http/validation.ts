import type { Request, ResponseToolkit } from '@hapi/hapi';
import { ValidationError, type FieldProblem } from '../errors.ts';

interface JoiLikeError extends Error {
  details?: Array<{ path: Array<string | number>; message: string }>;
  output?: { payload?: { validation?: { source?: string } } };
}

/** Human text for a joi message: drop joi's quoting of the label. */
function clean(message: string): string {
  return message.replace(/"/g, '');
}

/**
 * Route validation failures (params, query, payload, headers) all become one 400
 * `validation_failed` with per-field details, e.g.
 * `{field: "per_page", location: "query", message: "per_page must be less than or equal to 100"}`.
 */
export function validationFailAction(_request: Request, _h: ResponseToolkit, err?: Error): never {
  const e = (err ?? new Error('invalid input')) as JoiLikeError;
  const location = e.output?.payload?.validation?.source ?? 'request';
  const details: (FieldProblem & { location: string })[] = (e.details ?? []).map((d) => ({
    field: d.path.length ? d.path.join('.') : location,
    location,
    message: clean(d.message),
  }));
  if (!details.length) details.push({ field: location, location, message: clean(e.message) });
  throw new ValidationError(`Invalid request ${location}: ${details.map((d) => d.message).join('; ')}.`, details);
}
