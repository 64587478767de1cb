import { ConfigError, loadConfig } from '../config/load-config.ts';
import { createApp } from './app.ts';
import { createLogger } from './logger.ts';
import { PluginLoadError } from './plugins/load-plugins.ts';

/**
 * `npm start`: one process serving the API on the configured database (embedded
 * SQLite by default). SIGTERM/SIGINT stop it gracefully.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.log.level);
  let app;
  try {
    app = await createApp(config, { logger });
    await app.start();
  } catch (err) {
    const known = err instanceof PluginLoadError;
    logger.fatal({ err: known ? undefined : { message: (err as Error).message, stack: (err as Error).stack } }, known ? (err as Error).message : 'start-up failed');
    await app?.stop().catch(() => undefined);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app
      .stop()
      .then(() => process.exit(0))
      .catch((err: Error) => {
        logger.error({ err: err.message }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

await main();
