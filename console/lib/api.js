// @ts-check

/**
 * The console's one way to the REST API: same origin, `Authorization: Bearer` from the
 * session, JSON in and out, and every failure turned into an ApiError carrying the API's
 * error code and message (docs/api.md#errors). Nothing here knows about pages.
 */

/** An API error body, or a network failure (status 0, code `network_error`). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {{ details?: Array<{ field?: string, location?: string, message: string }>, retryAfter?: number | null, requestId?: string | null, extra?: Record<string, unknown> }} [more]
   */
  constructor(status, code, message, more = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = more.details ?? [];
    /** Seconds to wait before trying again (429, 503), from the body or Retry-After. */
    this.retryAfter = more.retryAfter ?? null;
    this.requestId = more.requestId ?? null;
    this.extra = more.extra ?? {};
  }
}

/** @type {{ token: string | null, onUnauthorized: (error: ApiError) => void }} */
const auth = { token: null, onUnauthorized: () => {} };

/**
 * Called by the session only: the token every request sends, and what to do when the API
 * answers 401 (the token expired or was revoked).
 * @param {string | null} token
 * @param {(error: ApiError) => void} [onUnauthorized]
 */
export function configureApi(token, onUnauthorized) {
  auth.token = token;
  if (onUnauthorized) auth.onUnauthorized = onUnauthorized;
}

/** The bearer token of the session, for the stream client and downloads. */
export function currentToken() {
  return auth.token;
}

/**
 * `/api/findings` + {severity: 'high', page: 2} → `/api/findings?severity=high&page=2`.
 * Empty values (undefined, null, '') are left out, so a cleared filter disappears.
 * @param {string} path
 * @param {Record<string, unknown>} [query]
 */
export function withQuery(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * Turns a failed response into an ApiError (the API's one error shape, or a generic one
 * when a proxy answered with something else).
 * @param {Response} response
 */
export async function errorOf(response) {
  /** @type {any} */
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const error = body?.error ?? {};
  const header = Number(response.headers.get('retry-after'));
  const { code, message, details, retry_after: retryAfter, request_id: requestId, ...extra } = error;
  return new ApiError(
    response.status,
    typeof code === 'string' ? code : `http_${response.status}`,
    typeof message === 'string' ? message : `The server answered ${response.status} ${response.statusText}`.trim(),
    {
      details: Array.isArray(details) ? details : [],
      retryAfter: typeof retryAfter === 'number' ? retryAfter : Number.isFinite(header) && header > 0 ? header : null,
      requestId: typeof requestId === 'string' ? requestId : response.headers.get('x-request-id'),
      extra,
    },
  );
}

/**
 * One request. Resolves to the Response when it is 2xx or 304; throws ApiError otherwise.
 * @param {string} method
 * @param {string} path
 * @param {{ query?: Record<string, unknown>, body?: unknown, rawBody?: BodyInit, contentType?: string, headers?: Record<string, string>, signal?: AbortSignal }} [options]
 */
export async function send(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json', ...options.headers };
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  /** @type {BodyInit | undefined} */
  let body;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    if (options.contentType) headers['content-type'] = options.contentType;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  let response;
  try {
    response = await fetch(withQuery(path, options.query), { method, headers, body, signal: options.signal, credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    if (/** @type {Error} */ (err).name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'Rampart did not answer. Check that the server is running and reachable, then try again.');
  }
  if (response.ok || response.status === 304) return response;
  const error = await errorOf(response);
  if (response.status === 401 && auth.token) auth.onUnauthorized(error);
  throw error;
}

/**
 * The JSON body of a request (`{data}` or `{data, meta}`), or null for 204.
 * @param {string} method
 * @param {string} path
 * @param {Parameters<typeof send>[2]} [options]
 * @returns {Promise<any>}
 */
export async function request(method, path, options) {
  const response = await send(method, path, options);
  if (response.status === 204) return null;
  return response.json();
}

export const api = {
  /** @param {string} path @param {Record<string, unknown>} [query] @param {AbortSignal} [signal] */
  get: (path, query, signal) => request('GET', path, { query, signal }),
  /** @param {string} path @param {unknown} [body] */
  post: (path, body) => request('POST', path, { body: body ?? {} }),
  /** @param {string} path @param {unknown} body */
  put: (path, body) => request('PUT', path, { body }),
  /** @param {string} path */
  del: (path) => request('DELETE', path),
};
