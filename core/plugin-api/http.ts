/**
 * The shape of the HTTP handles the engine hands to plugins (`CheckContext.http`,
 * `ExecutorContext.http`). Plain data both ways, so a test can stand in for either
 * with a function.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'TRACE';

export interface HttpRequest {
  url: string;
  method?: HttpMethod;
  headers?: Record<string, string>;
  body?: string;
  /** Whole-request limit (connect to last body byte); the handle's default otherwise. */
  timeoutMs?: number;
  /** Aborts the request; the context's own signal always applies too. */
  signal?: AbortSignal;
  /** Response bytes kept; the rest is discarded and `truncated` set. */
  maxResponseBytes?: number;
}

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8, cut at the byte limit. */
  body: string;
  truncated: boolean;
  durationMs: number;
}

/** An HTTP client handed in through a context. It rejects when there is no answer (refused, timed out). */
export interface HttpHandle<Req extends HttpRequest = HttpRequest> {
  request(req: Req): Promise<HttpResponse>;
}
