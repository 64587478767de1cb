import { defineForwarder, type EventFields, type ForwarderContext, type ForwarderMessage, type PlatformEvent } from '../../core/plugin-api/index.ts';
import { formatCef } from './cef-format.ts';

const CEF_SEVERITY: Record<string, number> = { critical: 10, high: 8, medium: 5, low: 3, info: 1 };

/** CEF severity (0-10): critical 10, high 8, medium 5, low 3, info 1; failures 6, alerts 7, others 2. */
export function cefSeverity(event: PlatformEvent, f: EventFields): number {
  if (f.severityName && f.severityName in CEF_SEVERITY) return CEF_SEVERITY[f.severityName]!;
  if (event.kind === 'system.alert') return 7;
  if (event.kind.endsWith('.failed')) return 6;
  return 2;
}

/**
 * CEF as the MSG of core's RFC 5424 envelope (rsyslog hands such a line on whole in
 * `%msg%`): `<PRI>1 TS HOST rampart - KIND - CEF:0|…`.
 * Extensions: rt, src, dst/dhost, msg, externalId (event id), and cs1..cs4 = finding
 * severity, CVSS score, finding id, asset id, each with its label.
 */
export function formatCefMessage(event: PlatformEvent, ctx: ForwarderContext): ForwarderMessage {
  const f = ctx.fields;
  const cef = formatCef({
    vendor: 'Rampart',
    product: 'Rampart',
    version: ctx.productVersion,
    classId: event.kind,
    name: f.summary,
    severity: cefSeverity(event, f),
    extensions: [
      ['rt', Date.parse(event.timestamp)],
      ['src', ctx.sourceIp],
      ['dst', f.assetIp],
      ['dhost', f.assetIp ? null : f.assetName],
      ['msg', f.summary],
      ['externalId', event.id],
      ['cs1Label', f.severityName ? 'severity' : null],
      ['cs1', f.severityName],
      ['cs2Label', f.cvss ? 'cvss' : null],
      ['cs2', f.cvss],
      ['cs3Label', f.findingId ? 'finding_id' : null],
      ['cs3', f.findingId],
      ['cs4Label', f.assetId ? 'asset_id' : null],
      ['cs4', f.assetId],
    ],
  });
  return { msg: cef, bom: false };
}

export default defineForwarder({
  name: 'cef',
  version: '1.1.0',
  apiVersion: '^1.2.0',
  description: 'ArcSight CEF lines in an RFC 5424 syslog header.',
  capabilities: [],
  format: 'cef',
  formatMessage: formatCefMessage,
});
