import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { ValidationError } from '../errors.ts';
import { mediaTypeOf } from './form-bodies.ts';

/**
 * How deep a JSON request body may nest objects and arrays (the body itself is level 1).
 * The deepest legitimate bodies stay well below: a playbook's conditions ("any"/"all" 8 and
 * "not" 8 levels, two JSON levels each at most) and step parameters (32 levels) under a few
 * levels of the playbook itself; CACAO documents are flat (steps refer to each other by id).
 */
export const MAX_BODY_DEPTH = 64;

/** Whether a parsed JSON value nests objects or arrays more than `max` levels; iterative, so any depth is safe to ask. */
export function bodyDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * 400 for a JSON body nested deeper than {@link MAX_BODY_DEPTH}, after authentication (a 401
 * stays a 401) and before validation: Joi, the secret scrubber, the template walks and
 * JSON.stringify all recurse once per level, and 10,000 levels overflowed the stack (a 500).
 * JSON.parse itself does not recurse, so the parsed body is safe to walk here.
 */
export const bodyDepthPlugin: Plugin<void> = {
  name: 'rampart-body-depth',
  register(server) {
    server.ext('onPostAuth', (request: Request, h: ResponseToolkit) => {
      // Only a body hapi parsed from JSON: a stream or buffer (raw and file routes) is not a JSON value.
      if (!isJsonType(mediaTypeOf(request.headers['content-type'])) || !isParsedJson(request.payload)) return h.continue;
      if (!bodyDeeperThan(request.payload, MAX_BODY_DEPTH)) return h.continue;
      const message = `The request body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels.`;
      throw new ValidationError(message, [{ field: 'body', message: `nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels` }]);
    });
  },
};

const isJsonType = (type: string): boolean => type === 'application/json' || type.endsWith('+json');

function isParsedJson(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
