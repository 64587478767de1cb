import { ConfigError, loadConfig } from '../config/load-config.ts';
import { routePlugins } from '../plugins/index.ts';
import { createApp } from './app.ts';
import { createLogger } from './logger.ts';
import { PluginLoadError } from './plugins/load-plugins.ts';
import { ROLES, type Role } from './work/roles.ts';
import { coerceError, errorMessage } from './work/coerce-error.ts';
import { safetySwitchesOff } from '../config/safety-switches.ts';
import { startupBanner } from './startup-banner.ts';
import { writeAdminTokenFile } from './admin-token-file.ts';
import { isTypeScriptModule, RUNNING_COMPILED } from './runtime/typescript-support.ts';
import { VERSION } from './version.ts';

/** `--role api|worker|scheduler|all` (repeatable or comma-separated; default all). */
export function rolesFrom(argv: readonly string[]): Role[] {
  const wanted: string[] = [];
  argv.forEach((arg, i) => {
    if (arg === '--role' && argv[i + 1]) wanted.push(...argv[i + 1]!.split(','));
    else if (arg.startsWith('--role=')) wanted.push(...arg.slice('--role='.length).split(','));
  });
  if (!wanted.length || wanted.includes('all')) return [...ROLES];
  const unknown = wanted.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length) throw new ConfigError(`Unknown --role ${unknown.join(', ')}: use api, worker, scheduler or all.`);
  return [...new Set(wanted)] as Role[];
}

/**
 * `npm start`: one process on the configured database (embedded SQLite by default),
 * by default in every role; `npm start -- --role worker` runs only the scan/job worker.
 * SIGTERM/SIGINT stop it gracefully.
 */
async function main(): Promise<void> {
  let roles: Role[];
  let config;
  try {
    roles = rolesFrom(process.argv.slice(2));
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.log.level);
  if (config.profile === 'trial') {
    logger.warn({ profile: 'trial' }, 'TRIAL PROFILE: this machine and unverified assets may be scanned, and webhooks may go to loopback over plain HTTP. For trying Rampart on one machine only; never run it like this in production.');
  }
  let app;
  let adminToken: string | null = null;
  try {
    app = await createApp(config, { routes: routePlugins, logger, roles, onAdminTokenGenerated: (token) => (adminToken = token) });
    await app.start();
  } catch (err) {
    const known = err instanceof PluginLoadError;
    const { message, stack } = coerceError(err);
    logger.fatal({ err: known ? undefined : { message, stack } }, known ? message : 'start-up failed');
    await app?.stop().catch(() => undefined);
    process.exit(1);
  }
  let adminTokenFile: string | null = null;
  if (adminToken && config.auth.bootstrapTokenFile) {
    try {
      adminTokenFile = writeAdminTokenFile(config.auth.bootstrapTokenFile, adminToken);
    } catch (err) {
      logger.error({ file: config.auth.bootstrapTokenFile, err: errorMessage(err) }, 'could not write the admin token file; the banner below shows the token');
    }
  }
  for (const s of safetySwitchesOff(config)) logger.warn({ key: s.key, value: s.value }, `safety switch off: ${s.key} is ${s.value}: ${s.risk}`);
  const typescriptPlugins = RUNNING_COMPILED ? app.ctx.plugins.list().filter((p) => p.source === 'external' && isTypeScriptModule(p.moduleUrl)).map((p) => p.plugin.name) : [];
  process.stderr.write(`${startupBanner({
    version: VERSION,
    roles,
    config,
    listening: roles.includes('api') ? { host: config.server.host, port: app.server.info.port as number } : null,
    adminToken,
    adminTokenFile,
    compiled: RUNNING_COMPILED,
    typescriptPlugins,
  })}\n`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err: errorMessage(err) }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

await main();
