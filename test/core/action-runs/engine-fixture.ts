import { defineExecutor, type ExecutorContext, type ExecutorPlugin, type ExecutorResult } from '../../../core/plugin-api/index.ts';
import { PluginRegistry } from '../../../core/plugins/plugin-registry.ts';
import type { ActionVersion, ParameterSpec, ValidatedParameters } from '../../../core/actions/action-version.ts';
import { createActionRuntime, type ActionRuntime } from '../../../core/action-runs/action-runtime.ts';
import { ValidationError } from '../../../core/errors.ts';
import { InputError } from '../../../core/errors.ts';
import type { TestApp } from '../../_helpers/harness/test-app.ts';
import type { ExecutorsConfig } from '../../../config/executors-config.ts';

/**
 * The run engine on a real app's database, outbox and outbound client, with a catalog,
 * credential store and executors the test controls: what the engine does is tested here
 * apart from the catalog and the built-in executors (tested in their own folders).
 */
export type Behaviour = (ctx: ExecutorContext) => Promise<ExecutorResult>;

export interface Engine {
  runtime: ActionRuntime;
  actions: Map<string, ActionVersion>;
  behaviours: Map<string, Behaviour>;
  credentials: Map<string, { value: string; sandbox?: string }>;
  contexts: ExecutorContext[];
  action(tenantId: string, over?: Partial<ActionVersion>): ActionVersion;
}

export function fixtureValidate(specs: readonly ParameterSpec[], input: Record<string, unknown>): ValidatedParameters {
  const values: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  const details: Array<{ field: string; message: string }> = [];
  for (const spec of specs) {
    if (spec.type === 'secret') secrets[spec.name] = spec.credential ?? spec.name;
    else if (input[spec.name] !== undefined) values[spec.name] = input[spec.name];
    else if (spec.required) details.push({ field: `parameters.${spec.name}`, message: 'is required' });
  }
  if (details.length) throw new ValidationError('Invalid parameters.', details);
  return { values, secrets };
}

let n = 0;

export function createEngine(app: TestApp, config: Partial<ExecutorsConfig> = {}): Engine {
  const actions = new Map<string, ActionVersion>();
  const behaviours = new Map<string, Behaviour>();
  const credentials = new Map<string, { value: string; sandbox?: string }>();
  const contexts: ExecutorContext[] = [];
  const plugin: ExecutorPlugin = defineExecutor({
    name: 'fixture-remote',
    version: '1.0.0',
    apiVersion: '^1.3.0',
    description: 'test executor: runs the behaviour named by config.behaviour',
    capabilities: [],
    executorKind: 'remote',
    async run(ctx) {
      contexts.push(ctx);
      const behaviour = behaviours.get(String(ctx.config.behaviour));
      if (!behaviour) throw new Error(`no behaviour ${String(ctx.config.behaviour)}`);
      return behaviour(ctx);
    },
  });
  const plugins = new PluginRegistry([{ plugin, source: 'builtin', moduleUrl: 'test:', options: { flavour: 'test' }, capabilities: [] }]);
  const runtime = createActionRuntime({
    config: { ...app.config, executors: { ...app.config.executors, pollIntervalMs: 20, ...config } },
    db: app.ctx.db,
    outbox: app.ctx.outbox as never,
    logger: app.ctx.logger,
    plugins,
    outbound: app.ctx.outbound,
    catalog: {
      async forRun(tenantId, actionId) {
        const a = actions.get(actionId);
        if (!a || a.tenantId !== tenantId) throw new InputError('no such action in the fixture catalog');
        return a;
      },
      async forRunByVersion(tenantId, actionId, version) {
        const a = actions.get(actionId);
        if (!a || a.tenantId !== tenantId || a.version !== version) throw new InputError('no such action version in the fixture catalog');
        return a;
      },
      validateParameters: fixtureValidate,
    },
    credentials: {
      async resolve(_tenantId, names, mode) {
        const out: Record<string, string> = {};
        for (const name of names) {
          const c = credentials.get(name);
          const value = mode.sandbox ? c?.sandbox : c?.value;
          if (value === undefined) throw new InputError(`Credential ${name} is not set.`, 'credential_missing');
          out[name] = value;
        }
        return out;
      },
    },
    asset: async () => null,
  });
  return {
    runtime,
    actions,
    behaviours,
    credentials,
    contexts,
    action(tenantId, over = {}) {
      n += 1;
      const a: ActionVersion = {
        actionId: `act_01J0000000000000000000${String(n).padStart(4, '0')}`,
        tenantId,
        name: `fixture-${n}`,
        view: 'reference',
        enabled: true,
        versionId: `ver_${n}`,
        version: '1.0.0',
        type: 'remediation',
        description: '',
        executor: { type: 'remote', target: 'https://example.invalid/hook' },
        config: { behaviour: 'ok' },
        parameters: [],
        inputMapping: null,
        timeoutSeconds: 5,
        retry: { maxAttempts: 1, backoffSeconds: 0 },
        ...over,
      };
      actions.set(a.actionId, a);
      return a;
    },
  };
}
