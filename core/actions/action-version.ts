/**
 * What the run engine (core/action-runs) needs of an action: one resolved version of it,
 * whichever view (reference or authoring) registered it. The catalog (core/actions)
 * produces these; nothing else reads the action tables.
 */

/** Parameter types: the spec's `string`, `integer`, `secret`, and `number`, `boolean`, `string[]`. */
export const PARAMETER_TYPES = ['string', 'integer', 'number', 'boolean', 'secret', 'string[]'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

export interface ParameterSpec {
  name: string;
  type: ParameterType;
  required: boolean;
  default?: unknown;
  description?: string;
  /** For `secret`: the credential holding the value (default: the parameter's own name). */
  credential?: string;
  validation?: { pattern?: string; min?: number; max?: number };
}

/** The executor part of an action: reference view `executor: "webhook"` becomes `{type: "webhook"}`. */
export interface ExecutorRef {
  type: 'local' | 'remote' | 'agent' | 'webhook';
  target?: string;
  method?: string;
}

/** What one version of an action does: shared by drafts, stored versions and the run engine's view. */
export interface ActionBehaviour {
  type: string;
  description: string;
  executor: ExecutorRef;
  /** Executor-specific settings (reference view `config`; empty for definitions). */
  config: Record<string, unknown>;
  parameters: ParameterSpec[];
  /** Remote executor request shaping (definitions); null when absent. */
  inputMapping: Record<string, unknown> | null;
  timeoutSeconds: number;
  retry: { maxAttempts: number; backoffSeconds: number };
}

export interface ActionVersion extends ActionBehaviour {
  actionId: string;
  tenantId: string;
  name: string;
  /** `reference` (POST /api/actions, usable at once) or `definition` (authoring view, usable when enabled). */
  view: 'reference' | 'definition';
  /** Definitions are usable in production only when enabled; reference-view actions always are. */
  enabled: boolean;
  versionId: string;
  version: string;
}

/** Parameters checked against their specs: plain values, and which parameters are secrets to fetch. */
export interface ValidatedParameters {
  /** Non-secret values, defaults applied. */
  values: Record<string, unknown>;
  /** Secret parameter name to the credential name its value comes from. */
  secrets: Record<string, string>;
}
