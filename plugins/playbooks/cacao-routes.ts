import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { ValidationError } from '../../core/errors.ts';
import type { AppContext } from '../../core/app-context.ts';
import { actionView } from '../../core/actions/action-views.ts';
import type { ActionVersion } from '../../core/actions/action-version.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { playbookView } from '../../core/playbooks/catalog/playbook-views.ts';
import { CacaoService } from '../../core/playbooks/cacao/cacao-service.ts';
import { playbookIdParams, playbookSchema } from './playbook-schemas.ts';

const tags = ['api', 'playbooks'];
const cacaoDocument = Joi.object({ type: Joi.string(), spec_version: Joi.string(), id: Joi.string() }).unknown(true).label('CacaoPlaybook');
const reusedSchema = Joi.array().items(Joi.object({ id: Joi.string().required(), name: Joi.string().required(), version: Joi.string().required() }).label('ReusedAction'));
const importedSchema = Joi.object({
  playbook: Joi.alternatives().try(playbookSchema, Joi.object().unknown(true)).required().description('201: the created playbook (as GET /api/playbooks/{id}); dry run: the converted definition.'),
  actions: Joi.array().items(Joi.object().unknown(true)).required().description('201: the created actions (as GET /api/actions/{id}); dry run: the POST /api/actions inputs the import would create.'),
  reused_actions: reusedSchema.required().description('Actions of the tenant with the same name and the same behaviour, used as they are.'),
}).label('CacaoImport');
const reusedView = (a: ActionVersion) => ({ id: a.actionId, name: a.name, version: a.version });

/** CACAO v2: export a playbook, import a CACAO playbook (docs/design/cacao.md). */
export function cacaoRoutes(ctx: AppContext): ServerRoute[] {
  const cacao = new CacaoService(ctx.services.playbooks, ctx.services.actions, { policy: ctx.outbound.policy, requireHttps: ctx.config.outbound.requireHttps });
  return [
    {
      method: 'GET',
      path: '/api/playbooks/{id}/export',
      options: {
        auth: { access: { scope: ['playbooks:read'] } },
        tags,
        description: 'Export a playbook (CACAO v2)',
        notes: '`format=cacao_v2` (the default and only format). 200 with the CACAO v2 playbook itself (not wrapped in `data`; Content-Disposition attachment), valid against the official OASIS schemas; the same version always exports to the same document. A Rampart extension carries what CACAO cannot, so importing the export restores the definition. 409 `action_ref_unresolved` when a step\'s action no longer resolves.',
        validate: { params: playbookIdParams, query: Joi.object({ format: Joi.string().valid('cacao_v2').default('cacao_v2') }) },
        response: { status: { 200: cacaoDocument } },
      },
      handler: async (request, h) => {
        const doc = await cacao.export(callerOf(request).tenantId, String(request.params.id));
        const file = `${doc.name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 100) || 'playbook'}.cacao.json`;
        return h.response(doc).type('application/json').header('content-disposition', `attachment; filename="${file}"`);
      },
    },
    {
      method: 'POST',
      path: '/api/playbooks/import',
      options: {
        auth: { access: { scope: ['playbooks:write'] } },
        tags,
        description: 'Import a CACAO v2 playbook',
        notes: 'The body is the CACAO v2 document. `?dry_run=true`, or `dry_run: true` beside the document fields (the spec form; removed before validation): 200 with the converted definition and the actions it would create, nothing written. Otherwise 201 with the playbook and the created actions (creating actions needs `actions:write` too). 400 `cacao_invalid` (schema problems with JSON paths), 400 `cacao_unsupported` (constructs Rampart cannot run, by step id), 400 `cacao_action_invalid`, 409 `cacao_action_conflict` (an action name taken by a different action), and the checks of POST /api/playbooks.',
        payload: { parse: true, allow: 'application/json' },
        validate: { query: Joi.object({ dry_run: Joi.boolean().default(false) }), payload: Joi.any().required() },
        response: { status: { 200: dataOf(importedSchema, 'CacaoImportDryRunResponse'), 201: dataOf(importedSchema, 'CacaoImportResponse') } },
      },
      handler: async (request, h) => {
        const caller = callerOf(request);
        const { doc, dryRun } = bodyDryRun(request.payload, (request.query as { dry_run: boolean }).dry_run);
        const result = await cacao.import(
          { tenantId: caller.tenantId, createdBy: caller.userId ?? caller.tokenId, mayCreateActions: caller.scope.includes('actions:write') },
          doc,
          { dryRun },
        );
        const reused_actions = result.reused.map(reusedView);
        if (result.dryRun) return { data: { playbook: result.playbook, actions: result.actions, reused_actions } };
        return h.response({ data: { playbook: playbookView(result.playbook), actions: result.actions.map(actionView), reused_actions } }).code(201);
      },
    },
  ];
}

/**
 * The spec puts `dry_run: true` in the import's body; Rampart also takes it as a query
 * flag (the body then stays a pure CACAO document). A body `dry_run` is not a CACAO field:
 * it is taken out before the document is validated, and must be a boolean.
 */
function bodyDryRun(payload: unknown, queryDryRun: boolean): { doc: unknown; dryRun: boolean } {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload) || !Object.hasOwn(payload, 'dry_run')) return { doc: payload, dryRun: queryDryRun };
  const { dry_run: flag, ...doc } = payload as Record<string, unknown>;
  if (typeof flag !== 'boolean') throw new ValidationError('dry_run must be a boolean (true previews the import, nothing is written).', [{ field: 'dry_run', message: 'must be a boolean' }]);
  return { doc, dryRun: queryDryRun || flag };
}
