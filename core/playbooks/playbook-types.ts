/**
 * The playbook definition as stored and served (the native format; CACAO v2 is a
 * translation of it). Shared by the catalog, the language (conditions, templates, step
 * graph), the run engine, triggers and the CACAO converter.
 */

export type JsonScalar = string | number | boolean | null;

/**
 * One condition on a value. A plain scalar means equality; an operator object holds one
 * or more operators that must all hold: `in` (one of), `gte`/`lte`/`gt`/`lt` (severity by
 * rank when both sides are severities, numbers by value, else refused at validation),
 * `contains` (an array holds the value), `matches` (a safe regular expression over the
 * string form, time-bounded), `exists` (the field is present or absent), `not` (negation).
 */
export type ConditionOperand =
  | JsonScalar
  | {
      in?: JsonScalar[];
      gte?: number | string;
      lte?: number | string;
      gt?: number | string;
      lt?: number | string;
      contains?: JsonScalar;
      matches?: string;
      exists?: boolean;
      not?: ConditionOperand;
    };

/**
 * Field path (dotted, e.g. `severity`, `asset.tags`, `steps.s1.output.status`) to its
 * condition; every entry must hold (AND). `any: [ConditionSet, …]` holds when one of its
 * sets does (OR), `all: [...]` when every one does.
 */
export type ConditionSet = { any?: ConditionSet[]; all?: ConditionSet[] } & { [path: string]: ConditionOperand | ConditionSet[] | undefined };

export interface PlaybookTrigger {
  /** A stored event kind, e.g. `finding.new`; `manual` for playbooks only run by hand. */
  event: string;
  /** Over the event's `data` (paths relative to it, e.g. `severity`, `asset.type`). */
  conditions: ConditionSet;
}

interface StepBase {
  id: string;
  name: string;
}

export interface ActionStep extends StepBase {
  type: 'action';
  /** An action id (`act_…`), a name (active version) or `name@1.2.0` (that version). */
  action_ref: string;
  /** Values may hold `{{ … }}` placeholders (see core/playbooks/language). */
  parameters: Record<string, unknown>;
  /** The next step; none ends this branch (or the run). */
  on_success?: string | null;
}

export interface ConditionStep extends StepBase {
  type: 'condition';
  /** Over the run context: paths start with `event.`, `finding.`, `asset.`, `parameters.` or `steps.<id>.`. */
  if: ConditionSet;
  on_true?: string | null;
  on_false?: string | null;
}

export interface ParallelStep extends StepBase {
  type: 'parallel';
  /** Each names the first step of a branch; a branch ends at a step with no next step. */
  next_steps: string[];
  /** Runs once every branch has ended. */
  on_success?: string | null;
}

export type PlaybookStep = ActionStep | ConditionStep | ParallelStep;

export interface PlaybookDefinition {
  name: string;
  version: string;
  description: string;
  trigger: PlaybookTrigger;
  /** Ordered; the run starts at the first. */
  steps: PlaybookStep[];
  on_failure: 'abort' | 'continue';
  /** 1..1440 (24 h); default 60. */
  timeout_minutes: number;
  tags: string[];
  /** Run parameters and their defaults: `{{ parameters.x }}`; a run's `parameters` override them. */
  parameters: Record<string, unknown>;
}

/** One stored version of a playbook, as the engine runs it. */
export interface PlaybookVersion extends PlaybookDefinition {
  playbookId: string;
  tenantId: string;
  versionId: string;
  enabled: boolean;
}

/** The roots a placeholder or a condition-step path may start with. */
export const CONTEXT_ROOTS = ['event', 'finding', 'asset', 'parameters', 'steps'] as const;
