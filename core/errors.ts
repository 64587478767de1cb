/**
 * Domain errors. Services throw these; the HTTP edge (core/http/error-response.ts)
 * is the one place that turns them into the error body. Codes are stable snake_case
 * strings that clients may switch on.
 */
export class RampartError extends Error {
  readonly statusCode: number;
  readonly code: string;
  /** Extra fields copied into the `error` object of the response (e.g. scan_id, retry_after). */
  readonly extra: Record<string, unknown>;

  constructor(statusCode: number, code: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.code = code;
    this.extra = extra;
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** 400 with per-field details. */
export class ValidationError extends RampartError {
  constructor(message: string, details: FieldProblem[], code = 'validation_failed') {
    super(400, code, message, { details });
  }
}

/** 400 for input that is well-formed but not acceptable. */
export class InputError extends RampartError {
  constructor(message: string, code = 'invalid_input', extra: Record<string, unknown> = {}) {
    super(400, code, message, extra);
  }
}

export class UnauthorizedError extends RampartError {
  constructor(message = 'Missing, unknown or expired token.', code = 'unauthorized') {
    super(401, code, message);
  }
}

export class ForbiddenError extends RampartError {
  constructor(message = 'This token may not perform this request.', code = 'forbidden', extra: Record<string, unknown> = {}) {
    super(403, code, message, extra);
  }
}

/** 404; also used for other tenants' records so their existence is not disclosed. */
export class NotFoundError extends RampartError {
  constructor(what = 'Resource', code = 'not_found') {
    super(404, code, `${what} not found.`);
  }
}

export class ConflictError extends RampartError {
  constructor(message: string, code = 'conflict', extra: Record<string, unknown> = {}) {
    super(409, code, message, extra);
  }
}

export class PayloadTooLargeError extends RampartError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(413, 'payload_too_large', message, extra);
  }
}

export class RateLimitedError extends RampartError {
  constructor(retryAfterSeconds: number, message = 'Rate limit exceeded; retry later.') {
    super(429, 'rate_limited', message, { retry_after: retryAfterSeconds });
  }
}

export class ServiceUnavailableError extends RampartError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(503, 'service_unavailable', message, extra);
  }
}
