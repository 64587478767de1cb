import { hostname, networkInterfaces } from 'node:os';
import type { SiemConfig } from '../../config/event-channels-config.ts';
import type { ForwarderContext, ForwarderPlugin, PlatformEvent } from '../plugin-api/index.ts';
import type { PluginRegistry } from '../plugins/plugin-registry.ts';
import type { SiemRecord } from './siem-repository.ts';
import { VERSION } from '../version.ts';
import { eventFields, syslogSeverity } from './event-fields.ts';
import { syslogFormatter, truncateUtf8 } from './syslog-message.ts';

let sourceIp: string | null | undefined;

/** This host's first non-internal IPv4 address (CEF `src`), looked up once. */
function localIp(): string | null {
  if (sourceIp === undefined) {
    sourceIp = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? null;
  }
  return sourceIp;
}

/** The envelope settings of one integration (also what pre-1.2 `render` forwarders receive as options). */
export interface SyslogRenderOptions {
  hostname: string;
  facility: number;
  appName: string;
  productVersion: string;
  /** This host's address, CEF `src`; null leaves it out. */
  sourceIp: string | null;
}

/**
 * The renderer of one forwarder: the forwarder formats the message, core wraps it in the
 * RFC 5424 envelope (PRI from the facility and the event's severity, timestamp, host,
 * app name, MSGID defaulting to the event kind). A forwarder written before API 1.2
 * renders the whole line itself through `render`.
 */
export function forwarderRenderer(forwarder: ForwarderPlugin, pluginOptions: Readonly<Record<string, unknown>>, o: SyslogRenderOptions): (event: PlatformEvent) => string {
  if (!forwarder.formatMessage) {
    if (!forwarder.render) throw new Error(`Forwarder ${forwarder.name} has neither formatMessage nor render.`);
    const merged = { ...pluginOptions, ...o } as Record<string, unknown>;
    return (event) => forwarder.render!(event, merged);
  }
  const format = forwarder.formatMessage.bind(forwarder);
  const base = { options: Object.freeze({ ...pluginOptions }), productVersion: o.productVersion, hostname: o.hostname, sourceIp: o.sourceIp };
  const envelope = syslogFormatter({ facility: o.facility, hostname: o.hostname, appName: o.appName, procId: null });
  return (event) => {
    const fields = eventFields(event);
    const ctx: ForwarderContext = { ...base, fields };
    const m = format(event, ctx);
    return envelope({
      severity: syslogSeverity(event, fields),
      timestamp: event.timestamp,
      msgId: m.msgId ?? event.kind,
      sd: m.structuredData ?? [],
      msg: m.msg,
      bom: m.bom ?? false,
    });
  };
}

/** Renders events for one integration through the forwarder plugin of its format, cut to the message limit. */
export function rendererFor(plugins: PluginRegistry, integration: Pick<SiemRecord, 'format' | 'facility'>, config: SiemConfig): (event: PlatformEvent) => string {
  const forwarder = plugins.forwarderFor(integration.format);
  if (!forwarder) throw new Error(`No forwarder plugin for format "${integration.format}" is loaded.`);
  const render = forwarderRenderer(forwarder.plugin, forwarder.options, {
    hostname: config.hostname ?? hostname(),
    facility: integration.facility,
    appName: 'rampart',
    productVersion: VERSION,
    sourceIp: localIp(),
  });
  return (event) => truncateUtf8(render(event), config.maxMessageBytes);
}
