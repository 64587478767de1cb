import { STORED_EVENT_KINDS } from '../../core/domain/event-kinds.ts';

/**
 * Kinds a stream client may ask for with `events=`: every stored kind except
 * `webhook.test` (a webhook's own test delivery, meaningless on the stream), plus
 * `heartbeat`. Heartbeats are keep-alives and are sent whatever the filter says.
 */
export const STREAM_EVENT_KINDS: readonly string[] = [...STORED_EVENT_KINDS.filter((k) => k !== 'webhook.test'), 'heartbeat'];

/** Parses `events=a,b`; throws with the offending names when a kind is unknown. */
export function parseKinds(value: string | undefined): Set<string> | null {
  if (value === undefined) return null;
  const kinds = value.split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => !STREAM_EVENT_KINDS.includes(k));
  if (unknown.length) throw new Error(`unknown event kinds: ${unknown.join(', ')}`);
  if (!kinds.length) throw new Error('must name at least one event kind');
  return new Set(kinds);
}
