import type { AttemptRow, DeliveryRow } from './webhook-delivery-repository.ts';
import type { WebhookRecord } from './webhook-repository.ts';
import { toIso, toIsoRequired } from '../time.ts';

/** A webhook as the API shows it: never the secret, never custom header values. */
export interface WebhookView {
  id: string;
  name: string;
  url: string;
  events: string[];
  active: boolean;
  transform: string | null;
  transform_options: Record<string, unknown>;
  filters: Record<string, unknown>;
  header_names: string[];
  has_secret: boolean;
  secret_rotation_ends_at: string | null;
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export function webhookView(w: WebhookRecord, now = Date.now()): WebhookView {
  const rotating = w.previousSecretSealed !== null && (w.previousSecretExpiresAt ?? 0) > now;
  return {
    id: w.id,
    name: w.name,
    url: w.url,
    events: w.events,
    active: w.active,
    transform: w.transform,
    transform_options: { ...w.transformOptions },
    filters: { ...w.filters },
    header_names: w.headerNames,
    has_secret: w.secretSealed !== null,
    secret_rotation_ends_at: rotating ? toIso(w.previousSecretExpiresAt) : null,
    disabled_reason: w.disabledReason,
    disabled_at: toIso(w.disabledAt),
    failing_since: toIso(w.failingSince),
    created_at: toIsoRequired(w.createdAt),
    updated_at: toIsoRequired(w.updatedAt),
  };
}

/** The spec's delivery record plus scheduling details. `timestamp`: the last attempt, else creation. */
export interface DeliveryView {
  id: string;
  event: string;
  event_id: string;
  status: string;
  response_code: number | null;
  duration_ms: number | null;
  timestamp: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

export function deliveryView(d: DeliveryRow): DeliveryView {
  return {
    id: d.id,
    event: d.event_kind,
    event_id: String(d.event_id),
    status: d.status,
    response_code: d.last_response_code === null ? null : Number(d.last_response_code),
    duration_ms: d.last_duration_ms === null ? null : Number(d.last_duration_ms),
    timestamp: toIsoRequired(Number(d.last_attempt_at ?? d.created_at)),
    attempts: Number(d.attempt_count),
    next_attempt_at: d.status === 'pending' || d.status === 'retried' ? toIso(d.next_attempt_at === null ? null : Number(d.next_attempt_at)) : null,
    last_error: d.last_error,
    delivered_at: toIso(d.delivered_at === null ? null : Number(d.delivered_at)),
    created_at: toIsoRequired(Number(d.created_at)),
  };
}

export interface AttemptView {
  attempt: number;
  outcome: string;
  response_code: number | null;
  duration_ms: number;
  error_code: string | null;
  error: string | null;
  response_body: string | null;
  timestamp: string;
}

export function attemptView(a: AttemptRow): AttemptView {
  return {
    attempt: Number(a.attempt_number),
    outcome: a.outcome,
    response_code: a.response_code === null ? null : Number(a.response_code),
    duration_ms: Number(a.duration_ms),
    error_code: a.error_code,
    error: a.error_message,
    response_body: a.response_body,
    timestamp: toIsoRequired(Number(a.attempted_at)),
  };
}
