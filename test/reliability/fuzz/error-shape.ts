/**
 * Why `body` is not the one error shape of docs/api.md ("Errors"), or null when it is:
 * `{"status":"error","error":{"code","message",…}}`, nothing else at the top, a stable
 * snake_case code and a message.
 */
export function errorShapeProblem(raw: string, contentType: string | undefined): string | null {
  if (!/^application\/json/.test(contentType ?? '')) return `content-type ${contentType ?? '(none)'}`;
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    return 'body is not JSON';
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'body is not an object';
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'error,status') return `top-level keys ${keys}`;
  if (body.status !== 'error') return `status ${JSON.stringify(body.status)}`;
  const error = body.error;
  if (!error || typeof error !== 'object' || Array.isArray(error)) return 'error is not an object';
  if (typeof error.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(error.code)) return `code ${JSON.stringify(error.code)}`;
  if (typeof error.message !== 'string' || error.message.length === 0) return 'message missing';
  if (/\n\s+at .+\(.+:\d+:\d+\)/.test(raw) || /\bSQLITE_[A-Z]|\bER_[A-Z_]{3,}\b/.test(error.message) || /\bknex\b/i.test(error.message)) return 'message leaks internals';
  return null;
}
