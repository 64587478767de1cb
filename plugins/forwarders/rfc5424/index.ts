import { defineForwarder, type PlatformEvent } from '../../../core/plugin-api.ts';
import { eventFields, syslogEnvelope, type SyslogRenderOptions } from '../../../core/siem/event-fields.ts';

/**
 * Private SD-ID. 32473 is the example enterprise number RFC 5612 reserves for
 * documentation; deployments that own a PEN can change it here.
 */
export const SD_ID = 'rampart@32473';

function scalar(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Event data as SD params: scalars as they are, one level of objects as `key_sub`, arrays as JSON. */
function params(event: PlatformEvent): Array<[string, string]> {
  const out: Array<[string, string]> = [['event_id', event.id], ['kind', event.kind]];
  if (event.tenantId) out.push(['tenant_id', event.tenantId]);
  if (event.assetId) out.push(['asset_id', event.assetId]);
  for (const [key, value] of Object.entries(event.data)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [sub, v] of Object.entries(value as Record<string, unknown>)) {
        const s = scalar(v);
        if (s !== null) out.push([`${key}_${sub}`, s]);
      }
      continue;
    }
    const s = scalar(value);
    if (s !== null && !out.some(([k]) => k === key)) out.push([key, s]);
  }
  return out;
}

/** RFC 5424 with the event as structured data and a one-line summary as MSG (UTF-8, BOM). */
export function renderRfc5424(event: PlatformEvent, o: SyslogRenderOptions): string {
  const f = eventFields(event);
  return syslogEnvelope(event, f, o, { sd: [{ id: SD_ID, params: params(event) }], msg: f.summary, bom: true });
}

export default defineForwarder({
  name: 'rfc5424',
  version: '1.0.0',
  apiVersion: '^1.0.0',
  description: 'RFC 5424 syslog with the event as structured data.',
  capabilities: [],
  format: 'rfc5424',
  render: (event, options) => renderRfc5424(event, options as unknown as SyslogRenderOptions),
});
