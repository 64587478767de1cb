import type { Db } from '../core/db/create-db.ts';
import { CliError, EXIT } from './exit-codes.ts';

/**
 * The database of this machine's configuration, for commands that work on it directly
 * (`migrate`, `admin findings recount`). A configuration error is exit code "unavailable".
 * Loaded lazily so `--help` never touches the configuration or the drivers.
 */
export async function configuredDatabase(): Promise<Db> {
  const { ConfigError, loadConfig } = await import('../config/load-config.ts');
  const { createDb } = await import('../core/db/create-db.ts');
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.unavailable);
    throw err;
  }
  return createDb(config.database.url);
}
