import type { ActionVersion } from '../../actions/action-version.ts';
import { NotFoundError } from '../../errors.ts';
import { idPattern } from '../../ids.ts';
import { VERSION_PATTERN } from '../../actions/semantic-version.ts';

/**
 * What a step's `action_ref` says. Three forms: an action id (`act_…`, the action's active
 * version at run time), a name (the same, looked up by the tenant-unique name), and
 * `<name or id>@1.2.0` (exactly that registered version, whatever is active). The ref is
 * stored as written and resolved again for every run, so a name follows the action's
 * active version while a pinned ref does not. The last `@` splits only when what follows
 * it is a version, so names that contain `@` still work.
 */
export type ParsedActionRef =
  | { kind: 'id'; actionId: string; version: string | null }
  | { kind: 'name'; name: string; version: string | null };

const ACTION_ID = idPattern('act');

export function parseActionRef(ref: string): ParsedActionRef {
  const at = ref.lastIndexOf('@');
  const pinned = at > 0 && VERSION_PATTERN.test(ref.slice(at + 1));
  const head = pinned ? ref.slice(0, at) : ref;
  const version = pinned ? ref.slice(at + 1) : null;
  return ACTION_ID.test(head) ? { kind: 'id', actionId: head, version } : { kind: 'name', name: head, version };
}

/** The part of the action catalog a resolution needs (ctx.services.actions). */
export interface ActionLookup {
  forRun(tenantId: string, actionId: string): Promise<ActionVersion>;
  forRunByVersion(tenantId: string, actionId: string, version: string): Promise<ActionVersion>;
  findByName(tenantId: string, name: string): Promise<ActionVersion | null>;
}

/**
 * The action version a ref names in the tenant, or null when there is none (no such
 * action, another tenant's, or an unregistered pinned version). For the catalog's checks
 * and for the run engine, which resolves every step again when it runs.
 */
export async function resolveActionRef(actions: ActionLookup, tenantId: string, ref: string): Promise<ActionVersion | null> {
  const parsed = parseActionRef(ref);
  try {
    let actionId: string;
    if (parsed.kind === 'id') {
      actionId = parsed.actionId;
    } else {
      const byName = await actions.findByName(tenantId, parsed.name);
      if (!byName) return null;
      if (parsed.version === null) return byName;
      actionId = byName.actionId;
    }
    return parsed.version === null ? await actions.forRun(tenantId, actionId) : await actions.forRunByVersion(tenantId, actionId, parsed.version);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}
