/**
 * Action versions are plain `MAJOR.MINOR.PATCH` (no pre-release or build parts): the
 * parts are stored as integers so "newest first" is an index order on both engines, and
 * "higher" has one obvious meaning.
 */
export interface VersionParts {
  major: number;
  minor: number;
  patch: number;
}

const PATTERN = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

/** The parts of a version string, or null when it is not `MAJOR.MINOR.PATCH` (each part 0-999999999, no leading zeros). */
export function parseVersion(version: string): VersionParts | null {
  const m = PATTERN.exec(version);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) } : null;
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: VersionParts, b: VersionParts): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export const VERSION_PATTERN = PATTERN;
