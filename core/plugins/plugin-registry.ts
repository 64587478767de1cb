import type { ExecutorPlugin, ForwarderPlugin, RampartPlugin, ScannerPlugin } from '../plugin-api/index.ts';

/** A loaded plugin and where it came from. */
export interface LoadedPlugin {
  plugin: RampartPlugin;
  source: 'builtin' | 'external';
  /** Absolute file URL of the module: what crosses into worker threads (never the object). */
  moduleUrl: string;
  /** Admin-set options, validated against the plugin's options schema, defaults applied. */
  options: Record<string, unknown>;
  /** Capabilities in force: declared and granted. */
  capabilities: string[];
}

/** The plugins loaded at start-up, looked up by name or by kind. */
export class PluginRegistry {
  readonly #byName = new Map<string, LoadedPlugin>();

  constructor(entries: LoadedPlugin[] = []) {
    for (const entry of entries) this.#byName.set(entry.plugin.name, entry);
  }

  list(): LoadedPlugin[] {
    return [...this.#byName.values()].sort((a, b) => a.plugin.name.localeCompare(b.plugin.name));
  }

  get(name: string): LoadedPlugin | undefined {
    return this.#byName.get(name);
  }

  scanners(): Array<LoadedPlugin & { plugin: ScannerPlugin }> {
    return this.list().filter((e): e is LoadedPlugin & { plugin: ScannerPlugin } => e.plugin.kind === 'scanner');
  }

  executors(): Array<LoadedPlugin & { plugin: ExecutorPlugin }> {
    return this.list().filter((e): e is LoadedPlugin & { plugin: ExecutorPlugin } => e.plugin.kind === 'executor');
  }

  forwarders(): Array<LoadedPlugin & { plugin: ForwarderPlugin }> {
    return this.list().filter((e): e is LoadedPlugin & { plugin: ForwarderPlugin } => e.plugin.kind === 'forwarder');
  }

  executorFor(kind: string): (LoadedPlugin & { plugin: ExecutorPlugin }) | undefined {
    return this.executors().find((e) => e.plugin.executorKind === kind);
  }

  forwarderFor(format: string): (LoadedPlugin & { plugin: ForwarderPlugin }) | undefined {
    return this.forwarders().find((e) => e.plugin.format === format);
  }
}
