/**
 * Rampart plugin API: the public, versioned contract for third-party scanner,
 * executor and forwarder plugins.
 *
 * A plugin is a module whose default export (or `plugin` export) is a plain object
 * built with {@link defineScanner}, {@link defineExecutor} or {@link defineForwarder}.
 * This file imports nothing from Rampart's internals but the shared words of
 * `core/domain/` (a leaf of plain types and constants), so a plugin package can depend
 * on it (types only) without pulling in the server. Plugins may also skip the helpers
 * and export the same plain object; the helpers only add type checking.
 *
 * Compatibility: {@link PLUGIN_API_VERSION} follows semver. A plugin declares the range
 * it was written for in `apiVersion` (e.g. `^1.0.0`); Rampart refuses to start with a
 * plugin whose range does not include the running API version.
 *
 * @packageDocumentation
 */

/** The version of this contract. Minor versions add optional fields only. */
export const PLUGIN_API_VERSION = '1.1.0';

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
export type { Severity } from './domain/severity.ts';
export type { AssetType } from './domain/asset-type.ts';
export type { Evidence } from './domain/evidence.ts';
import type { Severity } from './domain/severity.ts';
import type { AssetType } from './domain/asset-type.ts';
import type { Evidence } from './domain/evidence.ts';

/**
 * Scan types of both spec variants. `full`, `quick` and `custom` are compositions the
 * engine resolves; a scanner declares the specific types it serves.
 */
export type ScanType =
  | 'full'
  | 'quick'
  | 'custom'
  | 'web_app'
  | 'network'
  | 'api'
  | 'ssl'
  | 'api_discovery'
  | 'dns'
  | 'port';

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

/** What a check was pointed at: the asset, already normalised and inside the scan's scope. */
export interface ScanTarget {
  assetId: string;
  assetType: AssetType;
  /** The asset name in canonical form (lower-case domain, canonical IP, URL, CIDR). */
  name: string;
  /** Host to connect to (domain or IP), when the asset has one. */
  host?: string;
  /** Port, for a URL asset or a service found by another check. */
  port?: number;
  /** Full URL for URL assets. */
  url?: string;
}

/** A finding as a check reports it. Severity and score are derived from `cvss_vector`. */
export interface FindingReport {
  title: string;
  /** A CVSS v3.1 base vector, e.g. `CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N`. */
  cvss_vector: string;
  description: string;
  remediation?: string;
  evidence?: Evidence;
  references?: string[];
  tags?: string[];
  /**
   * Where exactly the problem is (host:port, URL, record name). With the asset and
   * check id it forms the dedup key, so a re-scan updates rather than duplicates.
   */
  location?: string;
}

/**
 * A network service a check saw, handed to later checks of the same scan (since API
 * 1.1). The port scanner reports every open port it identified; the ssl scanner then
 * inspects each one that spoke TLS.
 */
export interface DiscoveredService {
  /** The address (or name) that was connected to. */
  host: string;
  port: number;
  /** Detected protocol: `http`, `https`, `tls`, `ssh`, `smtp`, `redis`… or `unknown`. */
  service: string;
  /** The port completed a TLS handshake directly (not via STARTTLS). */
  tls: boolean;
}

/** Kinds of results a check can hand to later checks of the same scan. */
export type CheckOutput = 'services';

/** Handed to a check while it runs. */
export interface CheckContext {
  /** Scan options merged over the plugin's option defaults. */
  options: Readonly<Record<string, unknown>>;
  /** Aborted when the scan is cancelled or times out; stop network work promptly. */
  signal: AbortSignal;
  /** Milliseconds this check may run before it is recorded as timed out. */
  timeoutMs: number;
  /** Records a finding. */
  report(finding: FindingReport): void;
  /** Writes a line to the scan log. */
  log(level: LogLevel, message: string): void;
  /**
   * True when a host or IP is inside the scan's scope and not deny-listed. Checks
   * that follow links or discover hosts must ask before connecting.
   */
  inScope(hostOrIp: string): boolean;
  /**
   * Records a service this check found (checks declaring `produces: ['services']`).
   * Invalid entries are dropped; the same host:port is kept once.
   */
  addService(service: DiscoveredService): void;
  /**
   * Services found earlier in this scan by checks producing them (for checks declaring
   * `consumes: ['services']`). Undefined when none of the scan's checks produces
   * services: the check then works from the target alone.
   */
  readonly services?: readonly DiscoveredService[];
}

/** One unit of network work, in the sslyze sense: it either completes or is recorded as an error. */
export interface ScannerCheck {
  /** `<scanner>:<check>`, e.g. `ssl:weak-protocols`; stable, part of the dedup key. */
  id: string;
  title: string;
  /** Category for `custom` scans (e.g. `tls`, `headers`, `dns`, `exposure`). */
  category: string;
  /** The most severe finding this check can report; `quick` runs checks whose max is high or critical. */
  maxSeverity: Severity;
  description?: string;
  /** Asset types this check applies to (defaults to the scanner's). */
  assetTypes?: AssetType[];
  /**
   * Asset types the check also serves through discovered services (API 1.1, with
   * `consumes: ['services']`): planned for them only when the scan also runs a check
   * producing services, and then it inspects only those (e.g. ssl on the TLS ports a
   * network scan found).
   */
  serviceAssetTypes?: AssetType[];
  /** Results this check hands on (API 1.1): checks consuming them run after it finishes. */
  produces?: CheckOutput[];
  /**
   * Results this check reads (API 1.1): it runs after the scan's producers of them
   * (that do not consume themselves) have finished, whatever their outcome.
   */
  consumes?: CheckOutput[];
  run(ctx: CheckContext, target: ScanTarget): Promise<void>;
}

/** A scanner plugin: a manifest plus its checks. */
export interface ScannerPlugin extends PluginManifest {
  kind: 'scanner';
  /** Specific scan types this scanner serves (not full/quick/custom). */
  scanTypes: ScanType[];
  assetTypes: AssetType[];
  checks: ScannerCheck[];
}

/** Handed to an executor run. Secrets arrive resolved and must never be logged or returned. */
export interface ExecutorContext {
  /** Validated parameters, secrets included. */
  params: Readonly<Record<string, unknown>>;
  /** Names of the parameters that are secrets (to redact in anything you echo). */
  secretParams: readonly string[];
  /** The asset id the action targets, if any. */
  target: string | null;
  /** Executor settings from the action definition (URL, script name, method…). */
  config: Readonly<Record<string, unknown>>;
  /** Sandbox runs must not touch production systems. */
  sandbox: boolean;
  /** Dry runs validate and describe what would happen, without side effects. */
  dryRun: boolean;
  signal: AbortSignal;
  timeoutMs: number;
  log(level: LogLevel, message: string): void;
}

/** What an executor returns. `output` becomes the execution's `output`. */
export interface ExecutorResult {
  status: 'completed' | 'failed' | 'timed_out';
  output: Record<string, unknown>;
  error?: { code: string; message: string };
}

/** An executor plugin runs one kind of action (`local`, `remote`, `agent`, `webhook`, …). */
export interface ExecutorPlugin extends PluginManifest {
  kind: 'executor';
  /** The executor kind actions refer to. */
  executorKind: string;
  /** Schema of the executor's `config` in action definitions. */
  configSchema?: OptionsSchema;
  run(ctx: ExecutorContext): Promise<ExecutorResult>;
}

/** An event as every output sink sees it (webhooks, stream, SIEM). */
export interface PlatformEvent {
  /** Unique, increasing; the SSE `id:` and webhook de-duplication key. */
  id: string;
  kind: string;
  tenantId: string | null;
  assetId: string | null;
  /** ISO 8601 UTC. */
  timestamp: string;
  data: Record<string, unknown>;
}

/** A forwarder turns an event into one message in a wire format (CEF, RFC 5424, HEC…). */
export interface ForwarderPlugin extends PluginManifest {
  kind: 'forwarder';
  /** Format name integrations refer to, e.g. `cef`, `rfc5424`, `hec`. */
  format: string;
  /** Renders one event; `options` are the integration's settings. */
  render(event: PlatformEvent, options: Readonly<Record<string, unknown>>): string;
}

/** Any plugin. */
export type RampartPlugin = ScannerPlugin | ExecutorPlugin | ForwarderPlugin;

/** Declares a scanner plugin (adds `kind` and type checking). */
export function defineScanner(plugin: Omit<ScannerPlugin, 'kind'>): ScannerPlugin {
  return { ...plugin, kind: 'scanner' };
}

/** Declares an executor plugin (adds `kind` and type checking). */
export function defineExecutor(plugin: Omit<ExecutorPlugin, 'kind'>): ExecutorPlugin {
  return { ...plugin, kind: 'executor' };
}

/** Declares a forwarder plugin (adds `kind` and type checking). */
export function defineForwarder(plugin: Omit<ForwarderPlugin, 'kind'>): ForwarderPlugin {
  return { ...plugin, kind: 'forwarder' };
}
