import Joi from 'joi';
import { idPattern, type IdPrefix } from '../ids.ts';

/**
 * A record id of one kind (`ast_…`, `scn_…`) with a message naming the kind, so a
 * malformed id is a 400 that says what was expected rather than a 404.
 */
export function recordId(prefix: IdPrefix, noun: string): Joi.StringSchema {
  return Joi.string().pattern(idPattern(prefix)).messages({ 'string.pattern.base': `{#label} is not ${noun}` });
}

/** Counts by severity, every severity present (asset finding summaries, scan summaries, stats). */
export function severityCountsSchema(label: string): Joi.ObjectSchema {
  const count = Joi.number().integer().min(0).required();
  return Joi.object({ critical: count, high: count, medium: count, low: count, info: count }).label(label);
}
