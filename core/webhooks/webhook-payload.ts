import type { PlatformEvent } from '../plugin-api/index.ts';

/** The delivery body of the spec. `id` is the event id: the receiver's de-duplication key. */
export interface WebhookBody {
  id: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export const TRANSFORMS = ['hec', 'search_index'] as const;
export type Transform = (typeof TRANSFORMS)[number];

/** Optional settings of a transform (`transform_options` on the webhook). */
export interface TransformOptions {
  index?: string;
  source?: string;
  sourcetype?: string;
}

export function webhookBody(event: PlatformEvent): WebhookBody {
  return { id: event.id, event: event.kind, timestamp: event.timestamp, data: event.data };
}

/**
 * The bytes sent for a body. Without a transform: the body as JSON.
 *
 * `hec`: a Splunk HTTP Event Collector envelope for `/services/collector/event`:
 * `{time, host?, source, sourcetype, index, event: <body>}` with `time` in epoch seconds
 * (milliseconds as the fraction); source `rampart`, sourcetype `rampart:event` unless
 * set; `index` only when set (otherwise the token's default index applies).
 *
 * `search_index`: one document for a search index's document API (Elasticsearch /
 * OpenSearch `POST /<index>/_doc`): `{"@timestamp", "event": {"id", "kind", "dataset"},
 * "data": {…}}`, ECS-style field names so the index maps the time field without setup.
 */
export function renderBody(body: WebhookBody, transform: Transform | null, options: TransformOptions = {}): string {
  if (transform === 'hec') {
    const envelope: Record<string, unknown> = {
      time: Date.parse(body.timestamp) / 1000,
      source: options.source ?? 'rampart',
      sourcetype: options.sourcetype ?? 'rampart:event',
    };
    if (options.index) envelope.index = options.index;
    envelope.event = body;
    return JSON.stringify(envelope);
  }
  if (transform === 'search_index') {
    return JSON.stringify({
      '@timestamp': body.timestamp,
      event: { id: body.id, kind: body.event, dataset: options.index ?? 'rampart.events' },
      data: body.data,
    });
  }
  return JSON.stringify(body);
}
