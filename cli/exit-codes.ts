/**
 * The CLI's exit codes (docs/cli.md). Scripts switch on them: a refusal by Rampart (4)
 * needs a different answer than an unreachable server (3) or a bug (1).
 */
export const EXIT = {
  ok: 0,
  /** Anything unexpected (a bug, an I/O error). */
  failure: 1,
  /** Wrong command line: unknown command or option, missing argument, bad value. */
  usage: 2,
  /** Not configured or unreachable: no URL or token, the server or the database cannot be reached, migrations pending. */
  unavailable: 3,
  /** Rampart refused the request (a 4xx answer: validation, not found, conflict, scope, rate limit). */
  refused: 4,
  /** Rampart failed (a 5xx answer). */
  serverError: 5,
  /** A wait ran out (export --timeout). */
  timeout: 6,
} as const;

/** An error the CLI reports in one line (or as JSON with --json) and exits with its code. */
export class CliError extends Error {
  readonly exitCode: number;
  /** The API's error body when Rampart answered one. */
  readonly body: unknown;

  constructor(message: string, exitCode: number, body: unknown = null) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.body = body;
  }
}
