import type { Logger } from '../logger.ts';
import type { AttemptResult } from './webhook-attempt.ts';

/** What the log needs of a recorded attempt. */
export interface NotedAttempt {
  webhook: { id: string; tenantId: string; url: string };
  row: { id: string };
  result: AttemptResult;
}

const MAX_WEBHOOKS = 10_000;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * Logs a delivery that failed before any response (DNS, TLS, refused, timeout, an invalid
 * header…) once per webhook and cause: an endpoint that is down for a day with thousands
 * of deliveries queued gives one warning, another when the cause changes, and another if
 * it fails again after it had recovered. Every attempt keeps its cause in the delivery's
 * `last_error` and its attempt row anyway. Failures with an HTTP status are not logged
 * (the endpoint answered; the status is in the attempt log). Only the host of the URL is
 * logged: paths of webhook URLs often carry tokens (chat and collector hooks).
 */
export class FailureLog {
  readonly #logger: Logger;
  /** Last cause logged per webhook, oldest first (a Map keeps insertion order). */
  readonly #last = new Map<string, string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  note({ webhook, row, result }: NotedAttempt): void {
    if (result.outcome === 'success') {
      this.#last.delete(webhook.id);
      return;
    }
    if (result.responseCode !== null || result.outcome !== 'failure') return;
    const cause = `${result.errorCode ?? ''} ${result.errorMessage ?? ''}`;
    if (this.#last.get(webhook.id) === cause) return;
    this.#last.delete(webhook.id);
    if (this.#last.size >= MAX_WEBHOOKS) this.#last.delete(this.#last.keys().next().value!);
    this.#last.set(webhook.id, cause);
    this.#logger.warn(
      { webhook: webhook.id, tenant: webhook.tenantId, delivery: row.id, host: hostOf(webhook.url), error_code: result.errorCode, err: result.errorMessage },
      'webhook delivery failed before any response; further attempts failing the same way are not logged',
    );
  }
}
