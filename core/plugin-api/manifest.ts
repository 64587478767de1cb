/**
 * What every plugin kind shares: the API version, capabilities, the manifest and its
 * options schema, log levels, and the shared words of `core/domain/`.
 *
 * Compatibility: {@link PLUGIN_API_VERSION} follows semver. A plugin declares the range
 * it was written for in `apiVersion` (e.g. `^1.0.0`); Rampart refuses to start with a
 * plugin whose range does not include the running API version.
 */

/**
 * The version of this contract. Minor versions only add: optional plugin fields, and
 * context handles the engine provides (1.2: `ctx.http` for checks; `http`, `secrets`
 * and `sandbox` for executors; `formatMessage` for forwarders. 1.3: executor `executionId`,
 * `attempt`, `actionType`, `asset`, `settings`, `agents`, sandbox `functions`, result `plan`.
 * 1.4: scanner check `active`, `ctx.progress` for checks. 1.5: `ctx.resolve` for checks,
 * `bytes` in check HTTP responses).
 */
export const PLUGIN_API_VERSION = '1.6.0';

/**
 * What a plugin may do. An admin grants capabilities per plugin in config; a
 * third-party plugin that declares a capability it was not granted is refused.
 * - `net:outbound`: opens network connections (every scanner; remote executors).
 * - `exec:process`: starts local processes (local-script executor).
 * - `exec:sandbox`: runs untrusted code in an isolated-vm isolate.
 * - `secrets:read`: receives values from the tenant credential store.
 */
export type Capability = 'net:outbound' | 'exec:process' | 'exec:sandbox' | 'secrets:read';

/** Every capability name, for validation. */
export const CAPABILITIES: readonly Capability[] = ['net:outbound', 'exec:process', 'exec:sandbox', 'secrets:read'];

// The shared words come from core/domain (a leaf that imports nothing), so the
// engine and plugins use the same definitions, never a copy.
export type { Severity } from '../domain/severity.ts';
export type { AssetType } from '../domain/asset-type.ts';
export type { Evidence } from '../domain/evidence.ts';

/**
 * One option a plugin accepts, described as data so the admin config and the API can
 * validate it without importing the plugin's own validation library.
 */
export interface OptionField {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'string[]' | 'object';
  description?: string;
  required?: boolean;
  default?: unknown;
  /** Allowed values (strings or numbers). */
  enum?: ReadonlyArray<string | number>;
  min?: number;
  max?: number;
  /** A secret is write-only: never returned by the API, never logged. */
  secret?: boolean;
}

/** An options schema: option name to its description. */
export type OptionsSchema = Record<string, OptionField>;

/** Fields shared by every plugin kind. */
export interface PluginManifest {
  /** Unique among loaded plugins; lower-case letters, digits, `-` and `_`. */
  name: string;
  /** The plugin's own semver version. */
  version: string;
  /** Semver range of {@link PLUGIN_API_VERSION} the plugin supports, e.g. `^1.0.0`. */
  apiVersion: string;
  description: string;
  /** Capabilities the plugin needs; see {@link Capability}. */
  capabilities: Capability[];
  /** Plugin-level options an admin sets in config (`plugins.external[].options`). */
  options?: OptionsSchema;
}

/** Log levels a plugin may write at; the lines appear in scan and action logs. */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
