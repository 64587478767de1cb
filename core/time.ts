/**
 * Timestamps are stored as integer epoch milliseconds on every engine (no time-zone
 * or precision differences between SQLite and MariaDB) and leave the API as ISO 8601
 * UTC strings with milliseconds and `Z`.
 */
export function toIso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

export function toIsoRequired(ms: number): string {
  return new Date(Number(ms)).toISOString();
}

/** Parses an ISO 8601 string into epoch ms, or null if it is not a valid date. */
export function fromIso(value: string): number | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
