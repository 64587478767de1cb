import type { ActionVersion } from '../actions/action-version.ts';

/**
 * Which executor plugin runs an action. The executor value says WHERE it runs; for
 * `local` (on the platform) the type decides HOW: scripts in an isolate, notifications
 * by email or chat, approvals inside the engine (no plugin), anything else as an
 * admin-installed executable. `remote`, `webhook` and `agent` name their plugin.
 */
export function executorKindOf(action: Pick<ActionVersion, 'type' | 'executor'>): string | 'approval' {
  if (action.type === 'approval') return 'approval';
  if (action.executor.type !== 'local') return action.executor.type;
  if (action.type === 'script') return 'script';
  if (action.type === 'notification') return 'notification';
  return 'local';
}

/** ctx.config of a run: the action's config with the definition's executor target, method and input mapping. */
export function executorConfigOf(action: ActionVersion): Record<string, unknown> {
  return {
    ...action.config,
    ...(action.executor.target !== undefined ? { target: action.executor.target } : {}),
    ...(action.executor.method !== undefined ? { method: action.executor.method } : {}),
    ...(action.inputMapping ? { input_mapping: action.inputMapping } : {}),
  };
}
