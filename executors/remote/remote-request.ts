/**
 * What the remote executor sends, and what its answer means: a JSON body of the
 * parameters (shaped by `input_mapping`) to the definition's target.
 */
import type { ExecutorContext, ExecutorHttpRequest, ExecutorResult, HttpResponse } from '../../core/plugin-api/index.ts';
import { ConfigError } from '../_lib/config-error.ts';
import { boundedText, failed, hostOf, isSuccess, MAX_RESPONSE_BYTES, OUTPUT_TEXT_BYTES, parseJsonBody, responseFailure } from '../_lib/http-result.ts';
import { templateVariables } from '../_lib/render-template.ts';
import { shapeRequestBody } from './input-mapping.ts';

/** Methods that carry a body: the parameters always travel as JSON in the body. */
export const REMOTE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
type RemoteMethod = (typeof REMOTE_METHODS)[number];

export interface RemoteRequest {
  url: string;
  method: RemoteMethod;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function targetOf(config: Readonly<Record<string, unknown>>): string {
  const target = config.target;
  if (typeof target !== 'string' || target === '') throw new ConfigError('the remote executor needs a target URL');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new ConfigError('the remote target is not a URL');
  }
  // Whether plain http is allowed, and to which addresses, is the platform client's call.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError('the remote target must be an https URL');
  return target;
}

function methodOf(config: Readonly<Record<string, unknown>>): RemoteMethod {
  const method = config.method === undefined || config.method === null ? 'POST' : String(config.method).toUpperCase();
  if (!(REMOTE_METHODS as readonly string[]).includes(method)) {
    throw new ConfigError(`the remote executor sends a JSON body: method must be one of ${REMOTE_METHODS.join(', ')}`);
  }
  return method as RemoteMethod;
}

/** The request a run sends (also the dry run's plan). Throws ConfigError. */
export function buildRemoteRequest(ctx: ExecutorContext): RemoteRequest {
  const body = shapeRequestBody(ctx.config.input_mapping, ctx.params, templateVariables(ctx));
  return {
    url: targetOf(ctx.config),
    method: methodOf(ctx.config),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      // The execution id, not the attempt: a retry of the same run carries the same key,
      // so a receiver that honours Idempotency-Key applies the action once.
      'idempotency-key': ctx.executionId,
      'x-rampart-attempt': String(ctx.attempt),
    },
    body,
  };
}

export function toHttpRequest(req: RemoteRequest, ctx: ExecutorContext): ExecutorHttpRequest {
  return {
    url: req.url,
    method: req.method,
    headers: req.headers,
    body: JSON.stringify(req.body),
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    maxResponseBytes: MAX_RESPONSE_BYTES,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * 2xx: the JSON answer is the output (an object as is, any other JSON value as
 * `{result}`); a non-JSON answer is `{body}` (bounded text); an empty one is `{}`.
 */
export function remoteResult(res: HttpResponse, url: string): ExecutorResult {
  const host = hostOf(url);
  if (!isSuccess(res)) return responseFailure(res, host);
  if (res.truncated) {
    return failed('response_too_large', `${host} answered more than ${MAX_RESPONSE_BYTES} bytes; the answer is the action's output and cannot be cut`, { status_code: res.statusCode });
  }
  const parsed = parseJsonBody(res.body);
  if (parsed) return { status: 'completed', output: isObject(parsed.value) ? parsed.value : { result: parsed.value } };
  if (res.body.trim() === '') return { status: 'completed', output: {} };
  const text = boundedText(res.body, OUTPUT_TEXT_BYTES);
  return { status: 'completed', output: text.cut ? { body: text.text, body_truncated: true } : { body: text.text } };
}
