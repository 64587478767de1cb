import type { ReferenceActionInput } from '../../actions/action-draft.ts';
import type { ConditionSet, PlaybookDefinition } from '../playbook-types.ts';
import { cacaoId } from './uuid-v5.ts';

/**
 * The parts of a CACAO v2 document the converter reads and writes. Loose on purpose:
 * a document is checked against the official schemas (cacao-schema.ts) before the
 * importer reads it, and the exporter's output is checked against them in tests.
 */
export type CacaoVariable = { type: string; description?: string; value?: string | null; constant?: boolean; external?: boolean };

export interface CacaoCommand {
  type: string;
  description?: string;
  command?: string;
  command_b64?: string;
  headers?: Record<string, string[]>;
  content?: string;
  content_b64?: string;
}

export interface CacaoStep {
  type: string;
  name?: string;
  description?: string;
  on_completion?: string;
  on_success?: string;
  on_failure?: string;
  timeout?: number;
  delay?: number;
  step_variables?: Record<string, CacaoVariable>;
  step_extensions?: Record<string, unknown>;
  commands?: CacaoCommand[];
  agent?: string;
  targets?: string[];
  in_args?: string[];
  out_args?: string[];
  condition?: string;
  on_true?: string;
  on_false?: string;
  next_steps?: string[];
}

export interface CacaoAgentTarget {
  type: string;
  name: string;
  description?: string;
  address?: Record<string, string[]>;
  port?: string;
  authentication_info?: string;
  category?: string[];
}

export interface CacaoPlaybook {
  type: 'playbook';
  spec_version: 'cacao-2.0';
  id: string;
  name: string;
  description?: string;
  playbook_types?: string[];
  created_by: string;
  created: string;
  modified: string;
  labels?: string[];
  workflow_start: string;
  workflow_exception?: string;
  workflow: Record<string, CacaoStep>;
  playbook_variables?: Record<string, CacaoVariable>;
  agent_definitions?: Record<string, CacaoAgentTarget>;
  target_definitions?: Record<string, CacaoAgentTarget>;
  extension_definitions?: Record<string, unknown>;
  playbook_extensions?: Record<string, unknown>;
}

/**
 * The Rampart extension: what CACAO cannot say (action_ref, step parameters with their
 * placeholders, the native condition, the trigger, on_failure mode, timeout, the actions'
 * own definitions), so export → import restores the exact definition. The CACAO workflow
 * stays authoritative for the step graph: the importer follows the CACAO pointers and
 * takes only these values from the extension.
 */
export const RAMPART_EXTENSION_ID = cacaoId('extension-definition', 'rampart:playbook-extension:1');

export const RAMPART_EXTENSION_VERSION = '1.0.0';

export interface RampartPlaybookExtension {
  definition: Omit<PlaybookDefinition, 'steps'>;
  /** The Rampart step ids in their order (the run starts at the first). */
  step_order: string[];
  /** Each action_ref of the playbook to the action's definition (reference-view input). */
  actions: Record<string, ReferenceActionInput>;
}

export interface RampartStepExtension {
  step_id: string;
  name: string;
  action_ref?: string;
  parameters?: Record<string, unknown>;
  condition?: ConditionSet;
  /** Next-step pointers written as an explicit null (the end of a branch) rather than left out. */
  null_pointers?: string[];
}

/** An action the import needs: `ref` is what the converted steps' `action_ref` says. */
export interface PlannedAction {
  ref: string;
  input: ReferenceActionInput;
}

export interface ImportPlan {
  definition: PlaybookDefinition;
  actions: PlannedAction[];
}
