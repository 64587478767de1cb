import { defineExecutor, type AgentCommand, type ExecutorContext, type ExecutorResult } from '../../core/plugin-api/index.ts';

const fail = (code: string, message: string): ExecutorResult => ({ status: 'failed', output: {}, error: { code, message } });

/** A bare file name in the agent's scripts directory: no separators, no `..`, no leading dot. */
const BARE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** What the agent will run: isolate JavaScript for `script` actions, else an installed executable. */
function commandOf(ctx: ExecutorContext): AgentCommand | ExecutorResult {
  if (ctx.actionType === 'script') {
    const source = ctx.config.source;
    if (typeof source !== 'string' || source.trim() === '') return fail('source_missing', 'config.source (the script body) is required for a script action');
    return { kind: 'script', source };
  }
  const script = ctx.config.script;
  if (typeof script !== 'string' || script === '') return fail('script_missing', 'config.script (a file name in the agent\'s scripts directory) is required');
  if (!BARE_NAME.test(script) || script.includes('..')) return fail('invalid_script', 'config.script must be a bare file name (no path separators, no "..")');
  return { kind: 'local', script };
}

/**
 * Runs an action on an on-site agent: the job is queued for the agent whose name or
 * label is `config.target` and the run waits for its result (`ctx.agents`, API 1.3).
 * A dry run queues nothing and shows the command and the stdin the agent would get.
 */
export default defineExecutor({
  name: 'agent',
  version: '1.0.0',
  apiVersion: '^1.3.0',
  description: 'Runs an admin-installed executable, or a script action\'s JavaScript, on an on-site execution agent chosen by name or label.',
  capabilities: ['secrets:read'],
  executorKind: 'agent',
  configSchema: {
    target: { type: 'string', required: true, description: 'The agent\'s name, or a label several agents share (any one of them takes the job).' },
    script: { type: 'string', description: 'For non-script actions: a file name in the agent\'s --scripts-dir; parameters arrive as JSON on stdin.' },
    source: { type: 'string', description: 'For script actions: the body of an async function of (params, { log }), run in an isolate on the agent.' },
  },
  // Server-side agent settings (executors.agent), read by core/agents; declared here so the section validates.
  options: {
    leaseMs: { type: 'integer', min: 1000, max: 600_000, description: 'Lease of a claimed or running job; agents heartbeat every third of it.' },
    pollIntervalMs: { type: 'integer', min: 10, max: 10_000, description: 'How often waiting dispatches and long polls re-read the database.' },
    maxWaitSeconds: { type: 'integer', min: 1, max: 30, description: 'Longest long poll an agent may ask for.' },
    onlineWindowMs: { type: 'integer', min: 1000, max: 3_600_000, description: 'An agent seen within this window is online.' },
    timeoutGraceMs: { type: 'integer', min: 0, max: 60_000, description: 'Past a run\'s timeout, how long to wait for the agent\'s own report.' },
    maxLogLines: { type: 'integer', min: 1, max: 100_000, description: 'Log lines forwarded per run.' },
  },
  async run(ctx) {
    const target = ctx.config.target;
    if (typeof target !== 'string' || target === '') return fail('target_missing', 'config.target (an agent name or label) is required');
    const command = commandOf(ctx);
    if ('status' in command) return command;
    const params = { ...ctx.params };
    if (ctx.dryRun) {
      return { status: 'completed', output: { dry_run: true }, plan: { executor: 'agent', target, command, stdin: JSON.stringify(params) } };
    }
    return ctx.agents.run({ target, command, params });
  },
});
