import { isIP } from 'node:net';
import type { PlatformEvent } from '../plugin-api.ts';
import { formatSyslog, type SdElement } from './syslog-message.ts';

/** What both syslog formats need from an event, whatever its kind. */
export interface EventFields {
  severityName: string | null;
  cvss: string | null;
  findingId: string | null;
  assetId: string | null;
  assetName: string | null;
  /** The asset's address when its name is an IP (CEF `dst`). */
  assetIp: string | null;
  /** Human one-liner: CEF Name / msg, RFC 5424 MSG. */
  summary: string;
}

const SYSLOG_SEVERITY: Record<string, number> = { critical: 2, high: 3, medium: 4, low: 5, info: 6 };
const CEF_SEVERITY: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

function summaryOf(event: PlatformEvent): string {
  const d = event.data;
  switch (event.kind) {
    case 'finding.new':
      return `New ${str(d.severity) ?? ''} finding: ${str(d.title) ?? str(d.finding_id) ?? ''}`.replace(/\s+/g, ' ');
    case 'finding.status_changed':
      return `Finding ${str(d.finding_id) ?? ''} status ${str(d.old_status) ?? '?'} -> ${str(d.new_status) ?? '?'}`;
    case 'scan.completed':
      return `Scan ${str(d.scan_id) ?? ''} completed with ${str(d.finding_count) ?? '0'} findings`;
    case 'scan.failed':
      return `Scan ${str(d.scan_id) ?? ''} failed: ${str(d.error) ?? 'unknown error'}`;
    case 'system.alert':
      return `System alert ${str(d.alert_type) ?? ''}: ${str(d.message) ?? ''}`;
    default: {
      const ref = str(d.execution_id) ?? str(d.scan_id) ?? str(d.asset_id) ?? str(d.finding_id);
      return ref ? `${event.kind} ${ref}` : event.kind;
    }
  }
}

export function eventFields(event: PlatformEvent): EventFields {
  const d = event.data;
  const asset = typeof d.asset === 'object' && d.asset !== null ? (d.asset as Record<string, unknown>) : {};
  const assetName = str(asset.name) ?? str(d.asset_name);
  return {
    severityName: str(d.severity),
    cvss: str(d.cvss),
    findingId: str(d.finding_id),
    assetId: event.assetId ?? str(asset.id) ?? str(d.asset_id),
    assetName,
    assetIp: assetName && isIP(assetName) ? assetName : null,
    summary: summaryOf(event),
  };
}

/** Syslog severity (0-7): finding severity when there is one, else by kind. */
export function syslogSeverity(event: PlatformEvent, f: EventFields): number {
  if (f.severityName && f.severityName in SYSLOG_SEVERITY) return SYSLOG_SEVERITY[f.severityName]!;
  if (event.kind === 'system.alert') return 1;
  if (event.kind.endsWith('.failed')) return 3;
  return 6;
}

/** CEF severity (0-10): critical 10, high 8, medium 5, low 3, info 1; failures 6, alerts 7, others 2. */
export function cefSeverity(event: PlatformEvent, f: EventFields): number {
  if (f.severityName && f.severityName in CEF_SEVERITY) return CEF_SEVERITY[f.severityName]!;
  if (event.kind === 'system.alert') return 7;
  if (event.kind.endsWith('.failed')) return 6;
  return 2;
}

/** Options every syslog forwarder receives (from the integration and the siem config). */
export interface SyslogRenderOptions {
  hostname: string;
  facility: number;
  appName: string;
  productVersion: string;
  /** This host's address, CEF `src`; null leaves it out. */
  sourceIp: string | null;
}

/**
 * The RFC 5424 message of one event: header fields every syslog forwarder shares
 * (facility, severity from the event, timestamp, host, app, MSGID = event kind) around
 * the forwarder's own structured data and MSG.
 */
export function syslogEnvelope(event: PlatformEvent, f: EventFields, o: SyslogRenderOptions, body: { sd: SdElement[]; msg: string; bom: boolean }): string {
  return formatSyslog({ facility: o.facility, severity: syslogSeverity(event, f), timestamp: event.timestamp, hostname: o.hostname, appName: o.appName, procId: null, msgId: event.kind, ...body });
}
