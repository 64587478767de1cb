/**
 * The words of the action catalog: the reference view's five types and four executors,
 * what a definition may use instead, and the name rules shared by routes and services.
 */

/** The reference view's types (`POST /api/actions`, the `type` filter of `GET /api/actions`). */
export const ACTION_TYPES = ['notification', 'remediation', 'webhook', 'script', 'approval'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** The reference view's executors. */
export const EXECUTOR_KINDS = ['local', 'remote', 'agent', 'webhook'] as const;
export type ExecutorKind = (typeof EXECUTOR_KINDS)[number];

/** The authoring view's executors (`executor.type`): the spec lists these three. */
export const DEFINITION_EXECUTORS = ['local', 'remote', 'agent'] as const;

/**
 * A definition's type: any short lower-case word (the spec allows custom types such as a
 * containment type). Custom types follow the rules of `remediation` for their executor.
 */
export const DEFINITION_TYPE_PATTERN = /^[a-z0-9_.-]{1,64}$/;

/** Action names: printable, no control characters, 1-100 characters. */
export const ACTION_NAME_PATTERN = /^[^\x00-\x1f\x7f]{1,100}$/;

/** Parameter names double as `{{ name }}` placeholders, so they are identifiers. */
export const PARAMETER_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Placeholder names filled from the targeted asset, not from parameters; parameters may not take them. */
export const ASSET_VARIABLES = ['target', 'asset_id'] as const;

/** Credential names (also a secret parameter's `credential`). */
export const CREDENTIAL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

/** An agent's name or label (`executor.target` / `config.target` of the agent executor). */
export const AGENT_TARGET_PATTERN = /^[a-z0-9_.-]{1,64}$/;

export const DEFAULT_VERSION = '1.0.0';
export const DEFAULT_TIMEOUT_SECONDS = 300;
export const MAX_TIMEOUT_SECONDS = 3600;
export const DEFAULT_RETRY = { maxAttempts: 1, backoffSeconds: 0 };

/** True for a bare file name: no path separators, no `..`, no NUL, not hidden, at most 255 characters. */
export function isBareFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !/[/\\\0]/.test(name) && !name.includes('..') && !name.startsWith('.');
}
