import { defineForwarder, type PlatformEvent } from '../../../core/plugin-api.ts';
import { formatCef } from '../../../core/siem/cef-format.ts';
import { cefSeverity, eventFields, syslogEnvelope, type SyslogRenderOptions } from '../../../core/siem/event-fields.ts';

/**
 * CEF inside an RFC 5424 header (formats.md §2.4): `<PRI>1 TS HOST rampart - KIND - CEF:0|…`.
 * Extensions: rt, src, dst/dhost, msg, externalId (event id), and cs1..cs3 = finding
 * severity, CVSS score, finding id, each with its label.
 */
export function renderCef(event: PlatformEvent, o: SyslogRenderOptions): string {
  const f = eventFields(event);
  const cef = formatCef({
    vendor: 'Rampart',
    product: 'Rampart',
    version: o.productVersion,
    classId: event.kind,
    name: f.summary,
    severity: cefSeverity(event, f),
    extensions: [
      ['rt', Date.parse(event.timestamp)],
      ['src', o.sourceIp],
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
  return syslogEnvelope(event, f, o, { sd: [], msg: cef, bom: false });
}

export default defineForwarder({
  name: 'cef',
  version: '1.0.0',
  apiVersion: '^1.0.0',
  description: 'ArcSight CEF lines in an RFC 5424 syslog header.',
  capabilities: [],
  format: 'cef',
  render: (event, options) => renderCef(event, options as unknown as SyslogRenderOptions),
});
