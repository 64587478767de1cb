import type { AssetType } from './asset-type.ts';
import type { StoredEventKind } from './event-kinds.ts';
import type { FindingStatus } from './finding-status.ts';
import type { Severity } from './severity.ts';

/**
 * The `data` of each stored event kind, exactly as the emitters write it today. Webhook
 * bodies, stream messages and SIEM records carry it unchanged, so these shapes are API:
 * add fields, never rename or remove them. The outbox (core/events/outbox.ts) takes
 * only events whose data matches their kind.
 */

/** An asset as finding events name it. */
export type EventAsset = { id: string; name: string; type: AssetType };

/** asset.created: core/assets/asset-service.ts (single create and bulk import). */
export type AssetCreatedData = { asset_id: string; name: string; type: AssetType; tags: string[] };

/** asset.verified: core/assets/asset-verification.ts. `method` is one of VERIFICATION_METHODS. */
export type AssetVerifiedData = { asset_id: string; name: string; type: AssetType; method: string };

/** scan.created: core/scans/scan-service.ts. */
export type ScanCreatedData = { scan_id: string; asset_id: string; scan_type: string; priority: string };

/** scan.progress: core/scans/scan-runner.ts, at most once per progress interval. `phase` is `<scanner>:<category>` or `finalizing`. */
export type ScanProgressData = { scan_id: string; progress: number; phase: string };

/** A check that ran and failed, as scan.completed names it. */
export type FailedCheckData = { check_id: string; status: string; error: string | null; duration_ms: number | null };

/**
 * scan.completed: core/scans/scan-finish.ts. `duration` in seconds. A completed scan may
 * still have failed checks: `checks_failed` counts them and `failed_checks` says why.
 */
export type ScanCompletedData = {
  scan_id: string;
  asset_id: string;
  status: 'completed';
  finding_count: number;
  duration: number;
  checks_total: number;
  checks_failed: number;
  failed_checks: FailedCheckData[];
};

/** scan.failed: core/scans/scan-finish.ts. */
export type ScanFailedData = { scan_id: string; asset_id: string; error: string | null };

/** finding.new: core/findings/finding-service.ts (imports and scans alike). */
export type FindingNewData = { finding_id: string; title: string; severity: Severity; cvss: number; asset: EventAsset; scan_id: string | null };

/**
 * finding.status_changed: core/findings/finding-service.ts (triage) and
 * core/scans/scan-findings.ts (a resolved finding found again by a scan, which adds
 * `scan_id` and `reason`).
 */
export type FindingStatusChangedData = {
  finding_id: string;
  old_status: FindingStatus;
  new_status: FindingStatus;
  asset_id: string;
  updated_by: string;
  scan_id?: string;
  reason?: string;
};

/** webhook.test: core/webhooks/webhook-delivery-service.ts; `sample` shows a finding.new's fields. */
export type WebhookTestData = {
  webhook_id: string;
  message: string;
  sample: { finding_id: string; title: string; severity: Severity; cvss: number; asset: EventAsset; scan_id: string };
};

/**
 * system.alert: core/siem/siem-forwarding.ts (a collector became unreachable) and
 * core/webhooks/webhook-attempt-recorder.ts (a failing webhook was disabled).
 */
export type SystemAlertData =
  | { alert_type: 'siem_unreachable'; message: string; integration_id: string }
  | { alert_type: 'webhook_disabled'; message: string; webhook_id: string; failing_since: string }
  | { alert_type: 'playbook_loop'; message: string; playbook_id: string; event_id: string; depth: number; reason?: 'depth' | 'fan_out' | 'rate_limited'; root_run_id?: string; caused_runs?: number };

/**
 * playbook.started / playbook.completed / playbook.failed: core/playbooks/runs (a run left
 * pending; a run ended). `failed` carries the statuses failed and cancelled, with the
 * error code (`step_failed`, `timeout`, `cancelled`, …). `trigger_event_id` is null for
 * a run started by hand.
 */
export type PlaybookRunData = {
  playbook_id: string;
  execution_id: string;
  playbook_name: string;
  status: 'running' | 'completed' | 'failed' | 'cancelled';
  trigger_event_id: string | null;
  error_code: string | null;
};

/** action.triggered: core/action-runs/execution-service.ts (a run was queued or is waiting for approval). */
export type ActionTriggeredData = {
  action_id: string;
  execution_id: string;
  action_name: string;
  status: 'pending';
  target: string | null;
  sandbox: boolean;
};

/**
 * action.completed / action.failed: core/action-runs (a run ended). `failed` carries the
 * statuses failed, timed_out and cancelled, with the error code.
 */
export type ActionFinishedData = {
  action_id: string;
  execution_id: string;
  action_name: string;
  status: 'completed' | 'failed' | 'timed_out' | 'cancelled';
  sandbox: boolean;
  error_code: string | null;
};

export interface EventPayloads {
  'asset.created': AssetCreatedData;
  'asset.verified': AssetVerifiedData;
  'scan.created': ScanCreatedData;
  'scan.progress': ScanProgressData;
  'scan.completed': ScanCompletedData;
  'scan.failed': ScanFailedData;
  'finding.new': FindingNewData;
  'finding.status_changed': FindingStatusChangedData;
  'action.triggered': ActionTriggeredData;
  'action.completed': ActionFinishedData;
  'action.failed': ActionFinishedData;
  'playbook.started': PlaybookRunData;
  'playbook.completed': PlaybookRunData;
  'playbook.failed': PlaybookRunData;
  'webhook.test': WebhookTestData;
  'system.alert': SystemAlertData;
}

export type EventPayload<K extends StoredEventKind> = EventPayloads[K];

/**
 * A map from every stored kind to its payload type, what the outbox is typed with. As a
 * type itself it allows any JSON object for any kind: the outbox's default until the
 * tests and benches that append synthetic events (`{n: 1}` as asset.created…) use
 * real payloads; then the default becomes EventPayloads.
 */
export type PayloadMap = { [K in StoredEventKind]: Record<string, unknown> };

/** An event to append, its data typed by its kind through `P` (a union over kinds, so `kind` narrows `data`). */
export type NewEventOf<P extends PayloadMap = EventPayloads, K extends StoredEventKind = StoredEventKind> = {
  [Q in K]: { tenantId: string | null; kind: Q; assetId?: string | null; data: P[Q] };
}[K];
