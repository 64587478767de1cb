import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { CliError, EXIT } from './exit-codes.ts';

/** Where the API is and the token to use: environment only, so a token never shows in `ps`. */
export interface ApiTarget {
  url: string;
  token: string;
}

/**
 * RAMPART_URL (or --url) and RAMPART_TOKEN, or RAMPART_TOKEN_FILE naming a file holding it.
 * There is deliberately no token option: process arguments are visible to every user.
 */
export function apiTarget(env: NodeJS.ProcessEnv, urlOption?: string): ApiTarget {
  const url = (urlOption ?? env.RAMPART_URL ?? '').replace(/\/+$/, '');
  if (!url) throw new CliError('No Rampart URL: set RAMPART_URL (e.g. http://localhost:8080) or pass --url.', EXIT.unavailable);
  if (!/^https?:\/\/[^/]+$/.test(url)) throw new CliError(`RAMPART_URL must be the base URL, http(s)://host[:port], not "${url}".`, EXIT.usage);
  let token = env.RAMPART_TOKEN ?? '';
  if (!token && env.RAMPART_TOKEN_FILE) {
    try {
      token = readFileSync(env.RAMPART_TOKEN_FILE, 'utf8').trim();
    } catch (err) {
      throw new CliError(`Cannot read RAMPART_TOKEN_FILE ${env.RAMPART_TOKEN_FILE}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`, EXIT.unavailable);
    }
  }
  if (!token) throw new CliError('No API token: set RAMPART_TOKEN, or RAMPART_TOKEN_FILE to a file holding it (never on the command line).', EXIT.unavailable);
  if (!/^[\x21-\x7e]+$/.test(token)) throw new CliError('The API token has unexpected characters (a line break in RAMPART_TOKEN?).', EXIT.unavailable);
  return { url, token };
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  json?: unknown;
  body?: Readable;
  headers?: Record<string, string>;
}

/** Turns an API error body into the CLI's message and exit code. */
function refusal(status: number, body: unknown): CliError {
  const error = (body as { error?: { code?: string; message?: string; details?: Array<{ field?: string; message?: string }> } } | null)?.error;
  const details = (error?.details ?? []).slice(0, 5).map((d) => `\n  ${d.field ?? ''}: ${d.message ?? ''}`).join('');
  const message = error ? `${error.message ?? 'Request refused.'} (${status} ${error.code ?? ''})${details}` : `Rampart answered ${status}.`;
  return new CliError(message, status >= 500 ? EXIT.serverError : EXIT.refused, body);
}

/** One API call; the response stream is left to the caller when `raw` (file downloads). */
export async function callApi(target: ApiTarget, req: ApiRequest, raw = false): Promise<{ status: number; headers: Dispatcher.ResponseData['headers']; json: unknown; stream: Dispatcher.ResponseData['body'] }> {
  const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, 'user-agent': 'rampart-cli', ...(req.headers ?? {}) };
  if (req.json !== undefined) headers['content-type'] = 'application/json';
  let res: Dispatcher.ResponseData;
  try {
    res = await request(`${target.url}${req.path}`, {
      method: req.method,
      headers,
      body: req.json !== undefined ? JSON.stringify(req.json) : req.body,
      // Imports and exports of large files take minutes; the server bounds them itself.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (err) {
    const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code ?? '';
    throw new CliError(`Cannot reach Rampart at ${target.url}: ${code || (err as Error).message}.`, EXIT.unavailable);
  }
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 400 || !raw) {
    const text = await res.body.text();
    let json: unknown = null;
    if (type.includes('json') && text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    if (res.statusCode >= 400) throw refusal(res.statusCode, json);
    return { status: res.statusCode, headers: res.headers, json, stream: res.body };
  }
  return { status: res.statusCode, headers: res.headers, json: null, stream: res.body };
}
