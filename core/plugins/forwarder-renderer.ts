import type { ForwarderContext, ForwarderPlugin, PlatformEvent } from '../plugin-api/index.ts';
import { eventFields, syslogSeverity } from './event-fields.ts';
import { syslogFormatter } from './syslog-message.ts';

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
