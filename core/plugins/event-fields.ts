import { isIP } from 'node:net';
import type { EventFields, PlatformEvent } from '../plugin-api/index.ts';

export type { EventFields };

const SYSLOG_SEVERITY: Record<string, number> = { critical: 2, high: 3, medium: 4, low: 5, info: 6 };

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

/** What every format needs from an event (handed to forwarders as `ctx.fields`). */
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
