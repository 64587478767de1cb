import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import satisfies from 'semver/functions/satisfies.js';
import type { Config } from '../../config/load-config.ts';
import { PLUGIN_API_VERSION, type RampartPlugin } from '../plugin-api/index.ts';
import { pluginSchema } from './manifest-schema.ts';
import { validateOptions } from './options-validator.ts';
import { PluginRegistry, type LoadedPlugin } from './plugin-registry.ts';
import { resolvePluginModule } from './resolve-module.ts';
import { ensureTypeScriptImports, RUNNING_COMPILED } from '../runtime/typescript-support.ts';

/** Start-up stops with this; the message names the plugin and what is wrong. */
export class PluginLoadError extends Error {}

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Folders whose sub-folders are built-in plugins (each with an index.ts). */
const BUILTIN_DIRS = ['scanners', 'executors', 'forwarders'];
/** The built-ins' entry: the compiled start (dist/) loads the compiled ones. */
const BUILTIN_ENTRY = RUNNING_COMPILED ? 'index.js' : 'index.ts';

function builtinModules(root: string): Array<{ name: string; file: string }> {
  const found: Array<{ name: string; file: string }> = [];
  for (const dir of BUILTIN_DIRS) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const file = join(abs, entry.name, BUILTIN_ENTRY);
      if (entry.isDirectory() && existsSync(file)) found.push({ name: entry.name, file });
    }
  }
  return found;
}

function pluginFrom(mod: Record<string, unknown>): unknown {
  let candidate = mod.default ?? mod.plugin;
  // A CommonJS module imported from ESM arrives as { default: module.exports }.
  if (candidate && typeof candidate === 'object' && !('kind' in candidate) && 'default' in candidate) {
    candidate = (candidate as { default: unknown }).default;
  }
  return candidate;
}

async function loadOne(moduleUrl: string, label: string, source: LoadedPlugin['source'], granted: string[] | 'declared', options: Record<string, unknown>): Promise<LoadedPlugin> {
  let mod: Record<string, unknown>;
  try {
    ensureTypeScriptImports(moduleUrl);
    mod = (await import(moduleUrl)) as Record<string, unknown>;
  } catch (err) {
    throw new PluginLoadError(`Cannot load ${label}: ${(err as Error).message}`);
  }
  const { value, error } = pluginSchema.validate(pluginFrom(mod), { abortEarly: true });
  if (error) throw new PluginLoadError(`Invalid ${label}: ${error.details[0]!.message.replace(/"/g, '')}`);
  const plugin = value as RampartPlugin;
  if (!satisfies(PLUGIN_API_VERSION, plugin.apiVersion)) {
    throw new PluginLoadError(`${label} (${plugin.name}) needs plugin API ${plugin.apiVersion}; this Rampart provides ${PLUGIN_API_VERSION}.`);
  }
  if (plugin.kind === 'scanner') {
    const stray = plugin.checks.find((c) => !c.id.startsWith(`${plugin.name}:`));
    if (stray) throw new PluginLoadError(`Invalid ${label}: check id ${stray.id} must start with "${plugin.name}:".`);
  }
  if (granted !== 'declared') {
    const missing = plugin.capabilities.filter((c) => !granted.includes(c));
    if (missing.length) {
      throw new PluginLoadError(`${label} (${plugin.name}) requires capabilities not granted by the admin: ${missing.join(', ')}.`);
    }
  }
  let resolved: Record<string, unknown>;
  try {
    resolved = validateOptions(plugin.options, options);
  } catch (err) {
    throw new PluginLoadError(`Invalid options for ${label} (${plugin.name}): ${(err as Error).message}`);
  }
  return { plugin, source, moduleUrl, options: resolved, capabilities: [...plugin.capabilities] };
}

/**
 * Loads the enabled built-in plugins and the admin-configured third-party ones.
 * Any problem (missing module, bad manifest, incompatible apiVersion, ungranted
 * capability, bad options, duplicate name) throws PluginLoadError naming the plugin.
 */
export async function loadPlugins(config: Config['plugins'], root = PROJECT_ROOT): Promise<PluginRegistry> {
  const entries: LoadedPlugin[] = [];
  const builtins = builtinModules(root);
  if (config.builtin !== 'all') {
    const unknown = config.builtin.filter((n) => !builtins.some((b) => b.name === n));
    if (unknown.length) throw new PluginLoadError(`plugins.builtin names unknown built-in plugins: ${unknown.join(', ')}.`);
  }
  const builtinOptions = config.builtinOptions ?? {};
  const unknownOptions = Object.keys(builtinOptions).filter((n) => !builtins.some((b) => b.name === n && (config.builtin === 'all' || config.builtin.includes(n))));
  if (unknownOptions.length) throw new PluginLoadError(`plugins.builtinOptions names built-in plugins that are not loaded: ${unknownOptions.join(', ')}.`);
  for (const b of builtins) {
    if (config.builtin !== 'all' && !config.builtin.includes(b.name)) continue;
    entries.push(await loadOne(pathToFileURL(b.file).href, `built-in plugin "${b.name}"`, 'builtin', 'declared', builtinOptions[b.name] ?? {}));
  }
  for (const [i, ext] of config.external.entries()) {
    const label = `plugin "${ext.module}" (plugins.external[${i}])`;
    let url: string;
    try {
      url = resolvePluginModule(ext.module, config.baseDir);
    } catch (err) {
      throw new PluginLoadError(`Cannot find ${label}: ${(err as Error).message}`);
    }
    entries.push(await loadOne(url, label, 'external', ext.capabilities, ext.options));
  }
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.plugin.name)) throw new PluginLoadError(`Two plugins are named "${e.plugin.name}"; plugin names must be unique.`);
    seen.add(e.plugin.name);
  }
  // The engine finds an executor by kind: two of one kind would make the choice arbitrary.
  const kinds = new Map<string, string>();
  for (const e of entries) {
    if (e.plugin.kind !== 'executor') continue;
    const other = kinds.get(e.plugin.executorKind);
    if (other) throw new PluginLoadError(`Plugins "${other}" and "${e.plugin.name}" are both executors of kind "${e.plugin.executorKind}"; load only one (leave the built-in out of plugins.builtin to replace it).`);
    kinds.set(e.plugin.executorKind, e.plugin.name);
  }
  return new PluginRegistry(entries);
}
