import type { ActionCatalog } from '../../actions/action-catalog.ts';
import type { ActionWithVersion } from '../../actions/action-repository.ts';
import type { ActionVersion } from '../../actions/action-version.ts';
import type { UrlRules } from '../../actions/destination-url.ts';
import { ConflictError, ForbiddenError, ValidationError } from '../../errors.ts';
import { resolveActionRef } from '../catalog/action-ref.ts';
import type { PlaybookCatalog } from '../catalog/playbook-catalog.ts';
import type { PlaybookWithVersion } from '../catalog/playbook-repository.ts';
import type { PlaybookDefinition } from '../playbook-types.ts';
import { finalRef, planActions, type ReferenceActionInput } from './action-plan.ts';
import { playbookToCacao } from './cacao-export.ts';
import { cacaoToPlaybook } from './cacao-import.ts';
import { cacaoSchemaProblems } from './cacao-schema.ts';
import type { CacaoPlaybook } from './cacao-types.ts';

export type ImportResult =
  | { dryRun: true; playbook: PlaybookDefinition; actions: ReferenceActionInput[]; reused: ActionVersion[] }
  | { dryRun: false; playbook: PlaybookWithVersion; actions: ActionWithVersion[]; reused: ActionVersion[] };

export interface ImportCaller {
  tenantId: string;
  createdBy: string | null;
  /** Creating actions needs `actions:write` besides `playbooks:write`. */
  mayCreateActions: boolean;
}

/**
 * CACAO v2 export and import of playbooks (docs/design/cacao.md). The converters are pure
 * (cacao-export.ts, cacao-import.ts); this service reads the catalogs, validates against
 * the official schemas, decides each action (reuse, create, conflict) and writes nothing
 * until every check has passed.
 */
export class CacaoService {
  readonly #playbooks: PlaybookCatalog;
  readonly #actions: ActionCatalog;
  readonly #urlRules: UrlRules;

  constructor(playbooks: PlaybookCatalog, actions: ActionCatalog, urlRules: UrlRules) {
    this.#playbooks = playbooks;
    this.#actions = actions;
    this.#urlRules = urlRules;
  }

  /** The active version as a CACAO v2 document. 404 for an absent or another tenant's playbook. */
  async export(tenantId: string, playbookId: string): Promise<CacaoPlaybook> {
    const { playbook, version } = await this.#playbooks.get(tenantId, playbookId);
    const actions = new Map<string, ActionVersion>();
    for (const step of version.definition.steps) {
      if (step.type !== 'action' || actions.has(step.action_ref)) continue;
      const resolved = await resolveActionRef(this.#actions, tenantId, step.action_ref);
      if (!resolved) throw new ConflictError(`Step ${step.id}: "${step.action_ref}" no longer names an action of this tenant, so the playbook cannot be exported.`, 'action_ref_unresolved', { step_id: step.id });
      actions.set(step.action_ref, resolved);
    }
    return playbookToCacao({ playbookId: playbook.id, tenantId, definition: version.definition, createdAt: playbook.createdAt, modifiedAt: version.createdAt, actions });
  }

  async import(caller: ImportCaller, doc: unknown, options: { dryRun: boolean }): Promise<ImportResult> {
    const { tenantId } = caller;
    const invalid = cacaoSchemaProblems(doc);
    if (invalid.length) {
      throw new ValidationError(`The document is not a valid CACAO v2 playbook: ${invalid.slice(0, 5).map((p) => `${p.field} ${p.message}`).join('; ')}${invalid.length > 5 ? '; …' : ''}.`, invalid, 'cacao_invalid');
    }
    const plan = cacaoToPlaybook(doc as CacaoPlaybook);
    const { decisions, conflicts } = await planActions(this.#actions, this.#urlRules, tenantId, plan.actions);
    if (conflicts.length) throw new ConflictError(`Action names of the CACAO playbook are taken by different actions: ${conflicts.map((c) => c.message).join('; ')}.`, 'cacao_action_conflict', { details: conflicts });
    const toCreate = decisions.filter((d) => d.existing === null);
    const reused = decisions.flatMap((d) => (d.existing ? [d.existing] : []));
    const withRefs = (refs: Map<string, string>): PlaybookDefinition => ({
      ...plan.definition,
      steps: plan.definition.steps.map((s) => (s.type === 'action' && refs.has(s.action_ref) ? { ...s, action_ref: refs.get(s.action_ref)! } : s)),
    });
    const dryRefs = new Map(decisions.map((d) => [d.planned.ref, finalRef(d, null)]));
    // Every check of the catalog, nothing written; refs of actions still to create count as resolving.
    const checked = await this.#playbooks.check(tenantId, withRefs(dryRefs), { knownActionRefs: toCreate.map((d) => finalRef(d, null)) });
    if (options.dryRun) return { dryRun: true, playbook: checked, actions: toCreate.map((d) => d.planned.input), reused };
    if (toCreate.length && !caller.mayCreateActions) {
      throw new ForbiddenError(`Importing this playbook creates ${toCreate.length} action(s), which needs the actions:write scope too.`, 'insufficient_scope', { required_scopes: ['playbooks:write', 'actions:write'] });
    }
    // Actions first (a playbook needs its refs to resolve). A failure after this point
    // (a racing name) leaves the created actions in place, usable and listed.
    const created: ActionWithVersion[] = [];
    const refs = new Map<string, string>();
    for (const d of decisions) {
      let id: string | null = null;
      if (!d.existing) {
        const action = await this.#actions.createReference(tenantId, d.planned.input, caller.createdBy);
        created.push(action);
        id = action.action.id;
      }
      refs.set(d.planned.ref, finalRef(d, id));
    }
    const playbook = await this.#playbooks.create(tenantId, withRefs(refs), caller.createdBy);
    return { dryRun: false, playbook, actions: created, reused };
  }
}
