/**
 * Last-Modified / If-Modified-Since arithmetic, kept apart from hapi so it can be tested
 * with chosen clocks.
 *
 * HTTP dates have 1-second resolution while changes are stamped in ms. Sending the
 * change's own second would let a later change within that same second answer 304 to a
 * client holding the earlier state. So Last-Modified is never later than
 * `safeSecond(now)`: two seconds before the second in which the response is computed
 * (one second because a write stamped at time T may commit up to SETTLE_MS later, and
 * one because the current second is still open). A change not yet visible when the
 * response was computed is therefore stamped in a later second than any Last-Modified
 * we sent, and a client presenting that Last-Modified gets 200. Data changed within
 * the last ~2 s is simply answered 200 until its second is safe; no stale 304 is ever
 * sent. If-Modified-Since values later than `safeSecond(now)` (we never sent them; a
 * client made them up from its own clock) are answered 200 for the same reason.
 *
 * Assumes the processes' clocks agree to well under a second (NTP).
 */

/** A write's timestamp may precede its commit by up to this much. */
export const SETTLE_MS = 1000;

/** The latest HTTP-date second we may claim as Last-Modified at `nowMs`. */
export function safeSecond(nowMs: number): number {
  return Math.floor((nowMs - SETTLE_MS) / 1000) - 1;
}

/** Seconds since the epoch to send as Last-Modified for data last changed at `changedMs`. */
export function lastModifiedSecond(changedMs: number, nowMs: number): number {
  return Math.max(0, Math.min(Math.floor(changedMs / 1000), safeSecond(nowMs)));
}

/** True when a client holding `ifModifiedSinceSec` already has data last changed at `changedMs`. */
export function isNotModified(ifModifiedSinceSec: number, changedMs: number, nowMs: number): boolean {
  return ifModifiedSinceSec >= Math.floor(changedMs / 1000) && ifModifiedSinceSec <= safeSecond(nowMs);
}

/** `If-Modified-Since` as epoch seconds, or null when absent or not an HTTP-date (then ignored, RFC 9110 §13.1.3). */
export function parseHttpDate(value: string | string[] | undefined): number | null {
  if (typeof value !== 'string' || value.length > 64) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

export function formatHttpDate(seconds: number): string {
  return new Date(seconds * 1000).toUTCString();
}
