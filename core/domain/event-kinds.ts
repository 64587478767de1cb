/**
 * The event kinds of the spec. Stored kinds go through the outbox; `heartbeat` exists
 * only on the live stream and is never stored.
 */
export const STORED_EVENT_KINDS = [
  'asset.created',
  'asset.verified',
  'scan.created',
  'scan.progress',
  'scan.completed',
  'scan.failed',
  'finding.new',
  'finding.status_changed',
  'action.triggered',
  'action.completed',
  'action.failed',
  'playbook.started',
  'playbook.completed',
  'playbook.failed',
  'webhook.test',
  'system.alert',
] as const;

export type StoredEventKind = (typeof STORED_EVENT_KINDS)[number];
export type StreamOnlyEventKind = 'heartbeat';
export type EventKind = StoredEventKind | StreamOnlyEventKind;

/** Kinds a webhook may subscribe to (the spec's webhook list). */
export const WEBHOOK_EVENT_KINDS: StoredEventKind[] = STORED_EVENT_KINDS.filter(
  (k) => k !== 'scan.progress' && k !== 'system.alert',
);

export function isStoredEventKind(kind: string): kind is StoredEventKind {
  return (STORED_EVENT_KINDS as readonly string[]).includes(kind);
}
