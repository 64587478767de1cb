import type { Config } from '../config/load-config.ts';
import type { Db } from './db/create-db.ts';
import type { EventBus } from './events/event-bus.ts';
import type { Outbox } from './events/outbox.ts';
import type { Logger } from './logger.ts';
import type { PluginRegistry } from './plugins/plugin-registry.ts';
import type { AdminService } from './services/admin-service.ts';
import type { AuthService } from './services/auth-service.ts';

/** What route plugins and background roles are given: config, storage, services. */
export interface AppContext {
  config: Config;
  db: Db;
  logger: Logger;
  bus: EventBus;
  outbox: Outbox;
  plugins: PluginRegistry;
  services: {
    admin: AdminService;
    auth: AuthService;
  };
  version: string;
  startedAt: number;
}
