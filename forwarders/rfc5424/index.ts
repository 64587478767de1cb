import { defineForwarder, type ForwarderContext, type ForwarderMessage, type PlatformEvent } from '../../core/plugin-api/index.ts';

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

/** The event as structured data and a one-line summary as MSG (UTF-8, BOM), inside core's RFC 5424 envelope. */
export function formatRfc5424Message(event: PlatformEvent, ctx: ForwarderContext): ForwarderMessage {
  return { msg: ctx.fields.summary, structuredData: [{ id: SD_ID, params: params(event) }], bom: true };
}

export default defineForwarder({
  name: 'rfc5424',
  version: '1.1.0',
  apiVersion: '^1.2.0',
  description: 'RFC 5424 syslog with the event as structured data.',
  capabilities: [],
  format: 'rfc5424',
  formatMessage: formatRfc5424Message,
});
