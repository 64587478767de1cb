import type { ExecutorPlugin, ForwarderPlugin, OptionProblem, RampartPlugin, ScannerPlugin } from '../plugin-api/index.ts';
import { errorMessage } from '../work/coerce-error.ts';

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

  /**
   * What the loaded scanners refuse in a scan's options, each problem naming the option
   * (`''` when a scanner's own check failed). Every scanner is asked, not only those a
   * plan would run: the options are one namespace, and a schedule is planned again at
   * each run. A validator that throws refuses the options rather than failing the request.
   */
  scanOptionProblems(options: Readonly<Record<string, unknown>>): Array<OptionProblem & { scanner: string }> {
    const problems: Array<OptionProblem & { scanner: string }> = [];
    for (const { plugin } of this.scanners()) {
      if (typeof plugin.validateOptions !== 'function') continue;
      let found: unknown;
      try {
        found = plugin.validateOptions(options);
      } catch (err) {
        found = [{ option: '', message: `the ${plugin.name} scanner could not check the options: ${errorMessage(err)}` }];
      }
      for (const p of Array.isArray(found) ? (found as Array<Partial<OptionProblem>>) : []) {
        problems.push({ scanner: plugin.name, option: typeof p?.option === 'string' ? p.option : '', message: String(p?.message ?? 'refused') });
      }
    }
    return problems;
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
