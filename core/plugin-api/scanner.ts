/**
 * The scanner side of the contract: what a check is pointed at, what it reports, and
 * the context it runs with.
 */
import type { AssetType } from '../domain/asset-type.ts';
import type { Evidence } from '../domain/evidence.ts';
import type { Severity } from '../domain/severity.ts';
import type { HttpHandle, HttpRequest, HttpResponse } from './http.ts';
import type { LogLevel, PluginManifest } from './manifest.ts';

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

/** A request through {@link CheckContext.http}. */
export interface CheckHttpRequest extends HttpRequest {
  /**
   * In-scope redirects to follow (default 0: a 3xx comes back as is). A redirect to a
   * host outside the scope is never followed: that 3xx is returned instead.
   */
  maxRedirects?: number;
  /** Verify the server certificate (default false: checks judge the asset, they do not trust it). */
  verifyTls?: boolean;
}

/** A response through {@link CheckContext.http}. */
export interface CheckHttpResponse extends HttpResponse {
  /** The URL that answered (differs from the request's after a followed redirect). */
  url: string;
  /** The body's bytes as received, cut at the same limit as `body` (since API 1.5): for binary signatures. */
  bytes: Uint8Array;
}

/**
 * Plain HTTP for checks (since API 1.2). Only in-scope hosts are contacted: the host is
 * asked with `inScope` before connecting, every address it resolves to is checked
 * against the scan's deny list, the address connected to is checked again, and
 * redirects leave neither. Certificates are not verified unless asked (`verifyTls`), and
 * no redirect is followed unless asked (`maxRedirects`). The check's signal aborts it.
 * Rejects with an error when there is no answer, or, when the host is out of scope or
 * deny-listed, with one whose `code` is `out_of_scope`.
 */
export interface CheckHttp extends HttpHandle<CheckHttpRequest> {
  request(req: CheckHttpRequest): Promise<CheckHttpResponse>;
}

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
  /** Scope-guarded HTTP (since API 1.2); see {@link CheckHttp}. */
  http: CheckHttp;
  /**
   * The addresses a raw connection (TCP, TLS, UDP) to `host` may use (since API 1.5), by
   * the rule `http` keeps: the host must be in scope, and a name is resolved once and
   * refused when any of its addresses is deny-listed (an IP literal comes back as is).
   * Connect to the addresses returned, never to the name: a second lookup may answer
   * differently (DNS rebinding). With `outsideScope` only the deny list applies: for the
   * servers a check asks about the target rather than the target itself (a zone's name
   * servers, a resolver named in the options). Rejects with an error whose `code` is
   * `out_of_scope`, or the lookup's own error (`ENOTFOUND`…).
   */
  resolve(host: string, opts?: { outsideScope?: boolean }): Promise<string[]>;
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
  /**
   * How far the check is (since API 1.4): `done` of `total` units of the check's own
   * choosing (ports, pages, hosts). The engine turns it into the scan's progress while
   * the check runs, instead of crediting the check only when it finishes. Call it as
   * often as convenient: it is cheap, and values outside 0..total are clamped.
   */
  progress(done: number, total: number): void;
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
  /**
   * The check sends attack payloads (injections, form submissions) that may change the
   * target (since API 1.4). The engine plans it only when the scan sets `options.active:
   * true`, which it allows only for verified assets (or loopback ones under the loopback
   * trial); a check need not, but may, check the option again.
   */
  active?: boolean;
  /** Results this check hands on (API 1.1): checks consuming them run after it finishes. */
  produces?: CheckOutput[];
  /**
   * Results this check reads (API 1.1): it runs after the scan's producers of them
   * (that do not consume themselves) have finished, whatever their outcome.
   */
  consumes?: CheckOutput[];
  run(ctx: CheckContext, target: ScanTarget): Promise<void>;
}

/** One per-scan option a scanner refuses, and why (see {@link ScannerPlugin.validateOptions}). */
export interface OptionProblem {
  /** The option's key in the scan's `options`, e.g. `ports`. */
  option: string;
  message: string;
}

/** A scanner plugin: a manifest plus its checks. */
export interface ScannerPlugin extends PluginManifest {
  kind: 'scanner';
  /** Specific scan types this scanner serves (not full/quick/custom). */
  scanTypes: ScanType[];
  assetTypes: AssetType[];
  checks: ScannerCheck[];
  /**
   * Optional: the per-scan options (the scan's `options`, before plugin defaults) this
   * scanner could not run with. Called when a scan or a schedule is created or its
   * options change, for every loaded scanner (options are one namespace shared by all
   * scanners), so report only the options your checks read; any problem is a 400 that
   * names the option and stores nothing. Must be synchronous, cheap and pure.
   */
  validateOptions?(options: Readonly<Record<string, unknown>>): OptionProblem[];
}

/** Declares a scanner plugin (adds `kind` and type checking). */
export function defineScanner(plugin: Omit<ScannerPlugin, 'kind'>): ScannerPlugin {
  return { ...plugin, kind: 'scanner' };
}
