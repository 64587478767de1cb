import type { Plugin } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { listMeta, listOf, pageQuery } from '../../core/http/pagination.ts';
import { redactOptions } from '../../core/plugins/options-validator.ts';
import type { LoadedPlugin } from '../../core/plugins/plugin-registry.ts';

const pluginSchema = Joi.object({
  name: Joi.string().required(),
  version: Joi.string().required(),
  kind: Joi.string().valid('scanner', 'executor', 'forwarder').required(),
  description: Joi.string().allow('').required(),
  source: Joi.string().valid('builtin', 'external').required(),
  api_version: Joi.string().required(),
  capabilities: Joi.array().items(Joi.string()).required(),
  options: Joi.object().unknown(true).required().description('Admin-set options; secret values are redacted.'),
  scan_types: Joi.array().items(Joi.string()),
  asset_types: Joi.array().items(Joi.string()),
  checks: Joi.array().items(
    Joi.object({ id: Joi.string().required(), title: Joi.string().required(), category: Joi.string().required(), max_severity: Joi.string().required() }),
  ),
  executor_kind: Joi.string(),
  format: Joi.string(),
}).label('Plugin');

function view(entry: LoadedPlugin): Record<string, unknown> {
  const p = entry.plugin;
  const common = {
    name: p.name,
    version: p.version,
    kind: p.kind,
    description: p.description,
    source: entry.source,
    api_version: p.apiVersion,
    capabilities: entry.capabilities,
    options: redactOptions(p.options, entry.options),
  };
  switch (p.kind) {
    case 'scanner':
      return {
        ...common,
        scan_types: p.scanTypes,
        asset_types: p.assetTypes,
        checks: p.checks.map((c) => ({ id: c.id, title: c.title, category: c.category, max_severity: c.maxSeverity })),
      };
    case 'executor':
      return { ...common, executor_kind: p.executorKind };
    case 'forwarder':
      return { ...common, format: p.format };
  }
}

/** `GET /api/plugins`: what this instance loaded. Any valid token may read it. */
export const pluginListPlugin: Plugin<AppContext> = {
  name: 'rampart-plugin-list',
  register(server, ctx) {
    server.route({
      method: 'GET',
      path: '/api/plugins',
      options: {
        tags: ['api', 'plugins'],
        description: 'List loaded scanner, executor and forwarder plugins',
        validate: { query: Joi.object({ ...pageQuery, kind: Joi.string().valid('scanner', 'executor', 'forwarder') }) },
        response: { status: { 200: listOf(pluginSchema, 'PluginList') } },
      },
      handler(request) {
        const { page, per_page, kind } = request.query as { page: number; per_page: number; kind?: string };
        const all = ctx.plugins.list().filter((e) => !kind || e.plugin.kind === kind);
        return { data: all.slice((page - 1) * per_page, page * per_page).map(view), meta: listMeta(all.length, page, per_page) };
      },
    });
  },
};
