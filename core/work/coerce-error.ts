/** A caught value in one shape: what workers log and record. */
export interface CoercedError {
  message: string;
  /** A machine-readable code when the value carried one (OutboundError, driver errors…). */
  code?: string;
  stack?: string;
  /** The original value, for callers that branch on its class. */
  cause: unknown;
}

/**
 * Normalises anything a `catch` can receive (an Error, a string, a rejected plain
 * object, null) once, so workers need no `(err as Error).message` casts that break on
 * a thrown string.
 */
export function coerceError(value: unknown): CoercedError {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { message: value.message, ...(typeof code === 'string' && code ? { code } : {}), ...(value.stack ? { stack: value.stack } : {}), cause: value };
  }
  if (typeof value === 'string') return { message: value, cause: value };
  if (value && typeof value === 'object') {
    const o = value as { message?: unknown; code?: unknown };
    const message = typeof o.message === 'string' ? o.message : safeJson(value);
    return { message, ...(typeof o.code === 'string' && o.code ? { code: o.code } : {}), cause: value };
  }
  return { message: String(value), cause: value };
}

/** The caught value as an Error (wrapping a non-Error), for APIs that take one. */
export function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  return new Error(coerceError(value).message, { cause: value });
}

/** `message`, cut to `max` characters: the form error columns store. */
export function errorMessage(value: unknown, max = Infinity): string {
  return coerceError(value).message.slice(0, max);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
