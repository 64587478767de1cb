// @ts-check

/**
 * The event kinds of the API (core/domain/event-kinds.ts; the console cannot import the
 * server's TypeScript, and test/console/typecheck.test.ts checks that this list stays equal).
 */
export const EVENT_KINDS = [
  'asset.created', 'asset.verified',
  'scan.created', 'scan.progress', 'scan.completed', 'scan.failed',
  'finding.new', 'finding.status_changed',
  'action.triggered', 'action.completed', 'action.failed',
  'playbook.started', 'playbook.completed', 'playbook.failed',
  'webhook.test', 'system.alert',
];

/** What a webhook may subscribe to: every stored kind but the two the spec keeps off webhooks. */
export const WEBHOOK_EVENT_KINDS = EVENT_KINDS.filter((k) => k !== 'scan.progress' && k !== 'system.alert');
