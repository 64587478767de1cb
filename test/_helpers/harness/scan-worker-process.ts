// A Rampart process in the worker role on the database named by DATABASE_URL, with the
// engine fixture scanner: the crash-recovery test starts it, then kills it with SIGKILL.
import { loadConfig } from '../../../config/load-config.ts';
import { createApp } from '../../../core/app.ts';
import { routePlugins } from '../../../plugins/index.ts';
import { engineOnly } from './scan-helpers.ts';

const config = loadConfig({ env: { NODE_ENV: 'test' }, overrides: { database: { url: process.env.DATABASE_URL }, log: { level: process.env.WORKER_LOG_LEVEL ?? 'silent' }, ...engineOnly() } });
const app = await createApp(config, { routes: routePlugins, roles: ['worker'] });
await app.start();
process.stdout.write('worker ready\n');
