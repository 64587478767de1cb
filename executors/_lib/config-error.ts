/**
 * The action's executor config cannot be used (a missing URL, a method the executor does
 * not send, a malformed input mapping). The catalog refuses most of these at
 * registration; this is the run-time backstop, recorded as a failed run `invalid_config`.
 */
export class ConfigError extends Error {
  readonly code = 'invalid_config';

  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
