// @ts-check
import { ApiError, api } from './api.js';

export const FINDING_STATUSES = ['open', 'confirmed', 'resolved', 'false_positive', 'accepted_risk'];

/** Keyboard shortcut per status on the findings list (shown in its help line). */
export const STATUS_KEYS = { o: 'open', c: 'confirmed', r: 'resolved', f: 'false_positive', a: 'accepted_risk' };

/**
 * One triage: `PUT /api/findings/{id}/status` with an optional note.
 * @param {string} id
 * @param {string} status
 * @param {string} note
 */
export function setFindingStatus(id, status, note) {
  const trimmed = note.trim();
  return api.put(`/api/findings/${encodeURIComponent(id)}/status`, trimmed ? { status, note: trimmed } : { status });
}

/**
 * Triage of many findings: the API has one finding per request, so they go one after
 * another (the tenant's rate limit is shared with everything else). A 429 waits the
 * `retry_after` the API gives and carries on; other failures are collected per finding.
 * @param {string[]} ids
 * @param {string} status
 * @param {string} note
 * @param {{ onProgress: (p: { done: number, failed: Array<{ id: string, error: ApiError }>, waitingUntil: number | null }) => void, signal: AbortSignal }} options
 */
export async function bulkSetStatus(ids, status, note, { onProgress, signal }) {
  /** @type {Array<{ id: string, error: ApiError }>} */
  const failed = [];
  let done = 0;
  for (const id of ids) {
    for (;;) {
      if (signal.aborted) return { done, failed, stopped: true };
      try {
        await setFindingStatus(id, status, note);
        done += 1;
        break;
      } catch (err) {
        const error = err instanceof ApiError ? err : new ApiError(0, 'network_error', String(err));
        const wait = error.retryAfter;
        if (error.status === 429 && wait !== null) {
          onProgress({ done, failed, waitingUntil: Date.now() + wait * 1000 });
          await new Promise((r) => setTimeout(r, wait * 1000));
          continue;
        }
        if (error.status === 401) throw error;
        failed.push({ id, error });
        break;
      }
    }
    onProgress({ done, failed, waitingUntil: null });
  }
  return { done, failed, stopped: false };
}
