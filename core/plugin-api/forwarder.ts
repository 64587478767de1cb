/**
 * The forwarder side of the contract: a forwarder formats one event as the message of a
 * wire format (CEF, JSON…). The syslog envelope around it (RFC 5424 PRI, version,
 * timestamp, hostname, app-name, procid) is core's, so every format frames alike.
 */
import type { PluginManifest } from './manifest.ts';

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

/** What every format needs from an event, whatever its kind; derived once by core. */
export interface EventFields {
  severityName: string | null;
  cvss: string | null;
  findingId: string | null;
  assetId: string | null;
  assetName: string | null;
  /** The asset's address when its name is an IP (CEF `dst`). */
  assetIp: string | null;
  /** Human one-liner, e.g. `New high finding: Weak TLS ciphers`. */
  summary: string;
}

/** Handed to {@link ForwarderPlugin.formatMessage} with each event (since API 1.2). */
export interface ForwarderContext {
  /** The plugin's admin options, defaults applied. */
  options: Readonly<Record<string, unknown>>;
  /** This event's fields. */
  fields: EventFields;
  /** The sending Rampart's version (CEF header). */
  productVersion: string;
  /** The host name the envelope carries. */
  hostname: string;
  /** This host's address (CEF `src`); null when it has none. */
  sourceIp: string | null;
}

/** One RFC 5424 STRUCTURED-DATA element; core sanitises names and escapes values. */
export interface StructuredDataElement {
  /** `name@<PEN>` for private ids. */
  id: string;
  params: Array<[string, string]>;
}

/** A formatted event: the message and what the envelope should carry with it. */
export interface ForwarderMessage {
  /** The MSG part. */
  msg: string;
  /** STRUCTURED-DATA elements (default none). */
  structuredData?: StructuredDataElement[];
  /** MSGID (default the event kind). */
  msgId?: string;
  /** Prefix MSG with the UTF-8 BOM, for text meant as UTF-8 (default false, e.g. CEF). */
  bom?: boolean;
}

/** A forwarder turns an event into one message in a wire format (CEF, RFC 5424, HEC…). */
export interface ForwarderPlugin extends PluginManifest {
  kind: 'forwarder';
  /** Format name integrations refer to, e.g. `cef`, `rfc5424`, `hec`. */
  format: string;
  /** Formats one event's message (since API 1.2); core wraps it in the syslog envelope. */
  formatMessage?(event: PlatformEvent, ctx: ForwarderContext): ForwarderMessage;
  /**
   * Before API 1.2: renders the whole line, envelope included; `options` are the plugin's
   * options plus `hostname`, `facility`, `appName`, `productVersion` and `sourceIp`.
   * Still honoured when `formatMessage` is absent; new forwarders implement `formatMessage`.
   */
  render?(event: PlatformEvent, options: Readonly<Record<string, unknown>>): string;
}

/** Declares a forwarder plugin (adds `kind` and type checking). */
export function defineForwarder(plugin: Omit<ForwarderPlugin, 'kind'>): ForwarderPlugin {
  return { ...plugin, kind: 'forwarder' };
}
