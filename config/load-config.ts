import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema, type Config } from './config-schema.ts';

export type { Config } from './config-schema.ts';

/** Raised when the configuration is invalid; the message names the offending key. */
export class ConfigError extends Error {}

const HERE = dirname(fileURLToPath(import.meta.url));
/**
 * The checkout's config/ folder. The compiled copy (dist/config/) holds only code, so it
 * reads the files where admins edit them and a new config/<NODE_ENV>.json needs no rebuild.
 */
const CONFIG_DIR = existsSync(join(HERE, 'default.json')) ? HERE : join(HERE, '..', '..', 'config');

/** Well-known environment variables and the config keys they override. */
const ENV_KEYS: Record<string, string> = {
  PORT: 'server.port',
  HOST: 'server.host',
  DATABASE_URL: 'database.url',
  REDIS_URL: 'redis.url',
  LOG_LEVEL: 'log.level',
  BOOTSTRAP_ADMIN_TOKEN: 'auth.bootstrapAdminToken',
  RAMPART_SECRET_KEY: 'secrets.key',
};

/** Any other key: RAMPART__section__key=value (value parsed as JSON when it parses). */
const GENERIC_PREFIX = 'RAMPART__';

type Tree = Record<string, unknown>;

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepMerge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    out[key] = isTree(value) && isTree(out[key]) ? deepMerge(out[key] as Tree, value) : value;
  }
  return out;
}

function setPath(tree: Tree, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = tree;
  for (const key of keys.slice(0, -1)) {
    if (!isTree(node[key])) node[key] = {};
    node = node[key] as Tree;
  }
  node[keys[keys.length - 1]!] = value;
}

function parseEnvValue(raw: string): unknown {
  if (raw === '') return null;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function readJson(file: string): Tree {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Tree;
  } catch (err) {
    throw new ConfigError(`Invalid configuration file ${file}: ${(err as Error).message}`);
  }
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  configDir?: string;
  /** Applied last; used by tests and embedding code. */
  overrides?: Tree;
}

/** A named set of overrides (config/profiles/<name>.json) chosen with RAMPART_PROFILE, e.g. `trial`. */
function profileTree(dir: string, name: string): Tree {
  const available = existsSync(join(dir, 'profiles')) ? readdirSync(join(dir, 'profiles')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)) : [];
  if (!available.includes(name)) throw new ConfigError(`Unknown RAMPART_PROFILE "${name}": the profiles are ${available.join(', ') || 'none'}.`);
  return readJson(join(dir, 'profiles', `${name}.json`));
}

/**
 * Builds the configuration from config/default.json, config/<NODE_ENV>.json, the
 * profile (RAMPART_PROFILE), the environment and explicit overrides, then validates it. Throws ConfigError naming
 * the key (and the variable it came from) on the first invalid value.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const dir = options.configDir ?? CONFIG_DIR;
  let tree = readJson(join(dir, 'default.json'));
  const envFile = env.NODE_ENV ? join(dir, `${env.NODE_ENV}.json`) : null;
  if (envFile && existsSync(envFile)) tree = deepMerge(tree, readJson(envFile));
  const profile = env.RAMPART_PROFILE || null;
  if (profile) tree = deepMerge(tree, profileTree(dir, profile));

  const origin = new Map<string, string>();
  for (const [name, path] of Object.entries(ENV_KEYS)) {
    const raw = env[name];
    if (raw === undefined) continue;
    setPath(tree, path, path === 'auth.bootstrapAdminToken' || path === 'database.url' || path === 'secrets.key' ? raw || null : parseEnvValue(raw));
    origin.set(path, name);
  }
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(GENERIC_PREFIX) || raw === undefined) continue;
    const path = name.slice(GENERIC_PREFIX.length).split('__').join('.');
    setPath(tree, path, parseEnvValue(raw));
    origin.set(path, name);
  }
  if (options.overrides) tree = deepMerge(tree, options.overrides);
  tree.profile = profile;

  const { value, error } = configSchema.validate(tree, { abortEarly: true, convert: true });
  if (error) {
    const detail = error.details[0]!;
    const path = detail.path.join('.');
    const from = origin.get(path) ? ` (from ${origin.get(path)})` : '';
    throw new ConfigError(`Invalid configuration: ${path}${from}: ${detail.message}`);
  }
  return value;
}
