/**
 * How the HTTP executors (remote, webhook, notification's chat) turn a response into a
 * run result: the same limits and the same failure shape everywhere.
 */
import type { ExecutorResult, HttpResponse } from '../../core/plugin-api/index.ts';

/** Response bytes read at most; a larger answer is cut (and `truncated` set by the client). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Text (non-JSON) response bodies kept in an output. */
export const OUTPUT_TEXT_BYTES = 64 * 1024;
/** Response body kept in a failure's message and output. */
export const ERROR_BODY_BYTES = 2048;

/** `text` cut to at most `maxBytes` of UTF-8, never in the middle of a character. */
export function boundedText(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/** The body as JSON if it parses (whatever its content type says), else undefined. */
export function parseJsonBody(body: string): { value: unknown } | undefined {
  if (body.trim() === '') return undefined;
  try {
    return { value: JSON.parse(body) as unknown };
  } catch {
    return undefined;
  }
}

/** A 2xx answer. Redirects are not followed by the platform client, so a 3xx is a failure. */
export function isSuccess(res: HttpResponse): boolean {
  return res.statusCode >= 200 && res.statusCode < 300;
}

export function failed(code: string, message: string, output: Record<string, unknown> = {}): ExecutorResult {
  return { status: 'failed', output, error: { code, message } };
}

/** A non-2xx answer: failed `http_<status>`, with the status and a bounded body in the message. */
export function responseFailure(res: HttpResponse, host: string): ExecutorResult {
  const excerpt = boundedText(res.body, ERROR_BODY_BYTES);
  const body = excerpt.text + (excerpt.cut || res.truncated ? '…' : '');
  const message = `${host} answered HTTP ${res.statusCode}${body ? `: ${body}` : ''}`;
  return failed(`http_${res.statusCode}`, message, { status_code: res.statusCode, body });
}

/** The host a request went to, for messages and logs (never the path or query: they may hold secrets). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the destination';
  }
}
