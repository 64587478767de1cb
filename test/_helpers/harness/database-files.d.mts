/** The test files under `root` (paths relative to it) that reach a database (database-files.mjs). */
export function databaseTestFiles(root: string, files: string[]): string[];
