import { SCOPES } from '../domain/scopes.ts';
import { ValidationError, type FieldProblem } from '../errors.ts';
import { idPattern } from '../ids.ts';
import { EXPIRY_OUTCOMES, type AllowedDeciders, type NewApprovalRequest } from './approval-types.ts';

/** Limits of a request, documented in docs/api.md (Approvals). */
export const APPROVAL_LIMITS = {
  messageChars: 2000,
  detailsBytes: 16 * 1024,
  maxRequiredApprovals: 10,
  maxExpiresInSeconds: 30 * 24 * 3600,
  maxAllowedScopes: 20,
  maxAllowedUsers: 50,
  commentChars: 2000,
  cancelReasonChars: 500,
} as const;

const SUBJECT_KIND = /^[a-z][a-z0-9_]{0,39}$/;
const SUBJECT_ID = /^[\x21-\x7e]{1,64}$/;
const USER_ID = idPattern('usr');
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkAllowed(allowed: AllowedDeciders, problems: FieldProblem[]): void {
  const keys = Object.keys(allowed);
  for (const k of keys) if (k !== 'scopes' && k !== 'user_ids') problems.push({ field: `allowed.${k}`, message: `allowed.${k} is not allowed` });
  const { scopes, user_ids: users } = allowed;
  if (scopes === undefined && users === undefined) problems.push({ field: 'allowed', message: 'allowed must name scopes or user_ids (or be null: anyone with a decide scope)' });
  if (scopes !== undefined) {
    if (!Array.isArray(scopes) || scopes.length < 1 || scopes.length > APPROVAL_LIMITS.maxAllowedScopes) {
      problems.push({ field: 'allowed.scopes', message: `allowed.scopes must list 1-${APPROVAL_LIMITS.maxAllowedScopes} scopes` });
    } else {
      scopes.forEach((s, i) => {
        if (!(SCOPES as readonly string[]).includes(s)) problems.push({ field: `allowed.scopes.${i}`, message: `allowed.scopes.${i} is not a known scope` });
      });
    }
  }
  if (users !== undefined) {
    if (!Array.isArray(users) || users.length < 1 || users.length > APPROVAL_LIMITS.maxAllowedUsers) {
      problems.push({ field: 'allowed.user_ids', message: `allowed.user_ids must list 1-${APPROVAL_LIMITS.maxAllowedUsers} user ids` });
    } else {
      users.forEach((u, i) => {
        if (typeof u !== 'string' || !USER_ID.test(u)) problems.push({ field: `allowed.user_ids.${i}`, message: `allowed.user_ids.${i} is not a user id` });
      });
    }
  }
}

/**
 * Checks a new request before anything is written: a 400 `validation_failed` with one
 * detail per bad field (snake_case, as an action definition's approval settings name them).
 * Returns the allowed list normalised (duplicates dropped) or null.
 */
export function checkNewRequest(input: NewApprovalRequest): AllowedDeciders | null {
  const problems: FieldProblem[] = [];
  if (typeof input.subject?.kind !== 'string' || !SUBJECT_KIND.test(input.subject.kind)) problems.push({ field: 'subject.kind', message: 'subject.kind must be a lower-case word such as action_execution' });
  if (typeof input.subject?.id !== 'string' || !SUBJECT_ID.test(input.subject.id)) problems.push({ field: 'subject.id', message: 'subject.id must be 1-64 printable characters' });
  if (typeof input.message !== 'string' || !input.message.trim() || input.message.length > APPROVAL_LIMITS.messageChars || CONTROL.test(input.message)) {
    problems.push({ field: 'message', message: `message must be 1-${APPROVAL_LIMITS.messageChars} characters without control characters` });
  }
  if (input.details !== undefined && (!isPlainObject(input.details) || Buffer.byteLength(JSON.stringify(input.details)) > APPROVAL_LIMITS.detailsBytes)) {
    problems.push({ field: 'details', message: `details must be an object of at most ${APPROVAL_LIMITS.detailsBytes} bytes as JSON` });
  }
  const required = input.requiredApprovals;
  if (!Number.isInteger(required) || required < 1 || required > APPROVAL_LIMITS.maxRequiredApprovals) {
    problems.push({ field: 'required_approvals', message: `required_approvals must be an integer from 1 to ${APPROVAL_LIMITS.maxRequiredApprovals}` });
  }
  const ttl = input.expiresInSeconds;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > APPROVAL_LIMITS.maxExpiresInSeconds) {
    problems.push({ field: 'expires_in_seconds', message: `expires_in_seconds must be an integer from 1 to ${APPROVAL_LIMITS.maxExpiresInSeconds}` });
  }
  if (!(EXPIRY_OUTCOMES as readonly string[]).includes(input.onExpiry)) problems.push({ field: 'on_expiry', message: 'on_expiry must be fail, approve or deny' });
  if (typeof input.requestedBy?.tokenId !== 'string' && input.requestedBy?.tokenId !== null) problems.push({ field: 'requested_by', message: 'requested_by must name the token (or null for the system)' });
  let allowed: AllowedDeciders | null = null;
  if (input.allowed !== undefined && input.allowed !== null) {
    const given = input.allowed as AllowedDeciders;
    if (!isPlainObject(given)) problems.push({ field: 'allowed', message: 'allowed must be an object or null' });
    else {
      checkAllowed(given, problems);
      allowed = {};
      if (Array.isArray(given.scopes)) allowed.scopes = [...new Set(given.scopes)];
      if (Array.isArray(given.user_ids)) allowed.user_ids = [...new Set(given.user_ids)];
      // A quorum only named users can reach must be reachable: the requester cannot approve.
      if (!allowed.scopes && allowed.user_ids && Number.isInteger(required)) {
        const others = allowed.user_ids.filter((u) => u !== input.requestedBy?.userId).length;
        if (others < required) problems.push({ field: 'allowed.user_ids', message: `allowed.user_ids names ${others} possible approver(s) besides the requester, fewer than required_approvals (${required})` });
      }
    }
  }
  if (problems.length) throw new ValidationError(`Invalid approval request: ${problems.map((p) => p.message).join('; ')}.`, problems);
  return allowed;
}

/** A decision's comment: optional, bounded, no control characters but line breaks. */
export function checkComment(comment: string | null | undefined): string | null {
  if (comment === undefined || comment === null || comment === '') return null;
  if (typeof comment !== 'string' || comment.length > APPROVAL_LIMITS.commentChars || CONTROL.test(comment)) {
    throw new ValidationError(`comment must be at most ${APPROVAL_LIMITS.commentChars} characters without control characters.`, [{ field: 'comment', message: `comment must be at most ${APPROVAL_LIMITS.commentChars} characters` }]);
  }
  return comment;
}
