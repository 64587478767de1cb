// Types of dist-build.mjs (plain JavaScript: it runs before anything is compiled), for the
// TypeScript that builds dist/ on purpose: the tests of the compiled start.

/** The checkout's root folder. */
export const ROOT: string;
/** The compiled copy of the checkout. */
export const DIST: string;
/** A digest of every file the build reads. */
export function sourceDigest(): string;
/** Whether dist/ was built from exactly the sources in the checkout now. */
export function isFresh(digest?: string): boolean;
/** Compiles the sources into dist/ unless it is already current; returns what it did. */
export function ensureBuilt(options?: { log?: (message: string) => void }): Promise<'fresh' | 'built' | 'no-compiler'>;
