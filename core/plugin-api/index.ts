/**
 * Rampart plugin API: the public, versioned contract for third-party scanner,
 * executor and forwarder plugins (`rampart/plugin-api`).
 *
 * A plugin is a module whose default export (or `plugin` export) is a plain object
 * built with {@link defineScanner}, {@link defineExecutor} or {@link defineForwarder}.
 * This folder imports nothing from Rampart's internals but the shared words of
 * `core/domain/` (a leaf of plain types and constants), so a plugin package can depend
 * on it (types only) without pulling in the server. Plugins may also skip the helpers
 * and export the same plain object; the helpers only add type checking. What a plugin
 * may use at run time (HTTP, secrets, a sandbox, the scan scope) is handed to it
 * through its context, never imported. The author kit for tests is `rampart/author-kit`
 * (`core/author-kit/index.ts`).
 *
 * @packageDocumentation
 */
import type { ExecutorPlugin } from './executor.ts';
import type { ForwarderPlugin } from './forwarder.ts';
import type { ScannerPlugin } from './scanner.ts';

export * from './manifest.ts';
export * from './http.ts';
export * from './scanner.ts';
export * from './executor.ts';
export * from './forwarder.ts';

/** Any plugin. */
export type RampartPlugin = ScannerPlugin | ExecutorPlugin | ForwarderPlugin;
