import { defineExecutor, type ExecutorContext, type ExecutorResult } from '../../core/plugin-api/index.ts';
import { contextEnv, LOCAL_OPTIONS, localSettings } from './local-settings.ts';
import { networkIsolation } from '../_lib/network-isolation.ts';
import { resolveScript, ScriptRefusal } from '../_lib/resolve-script.ts';
import { executableEnv, runExecutable } from '../_lib/run-executable.ts';

/** Dry run: the target is checked exactly as a real run would, then described, not started. */
async function plan(ctx: ExecutorContext): Promise<ExecutorResult> {
  const settings = localSettings(ctx);
  let command: string;
  try {
    command = await resolveScript(settings.scriptsDir, ctx.config.target);
  } catch (err) {
    if (err instanceof ScriptRefusal) return { status: 'failed', output: {}, error: { code: err.code, message: err.message } };
    throw err;
  }
  const isolated = ctx.sandboxMode ? (await networkIsolation()) !== null : false;
  return {
    status: 'completed',
    output: { dry_run: true },
    plan: {
      executor: 'local',
      command,
      argv: [],
      cwd: '(fresh temp dir)',
      env: executableEnv({ env: contextEnv(ctx), sandbox: ctx.sandboxMode }, '(fresh temp dir)'),
      stdin: JSON.stringify(ctx.params),
      network: ctx.sandboxMode ? (isolated ? 'none (unshare --net)' : 'host (isolation unavailable)') : 'host',
      timeout_ms: ctx.timeoutMs,
    },
  };
}

/**
 * The `local` executor: runs an executable the admin installed in `scriptsDir`
 * (`executors.local.scriptsDir`), named by the action's `config.target`. See README.md.
 */
export default defineExecutor({
  name: 'local',
  version: '1.0.0',
  apiVersion: '^1.3.0',
  description: 'Runs an admin-installed executable: parameters as JSON on stdin, {status, data} JSON on stdout, stderr lines as log lines.',
  capabilities: ['exec:process'],
  executorKind: 'local',
  options: LOCAL_OPTIONS,
  configSchema: {
    target: { type: 'string', required: true, description: 'File name of the executable in the scripts directory (no path separators, no "..", not hidden).' },
  },
  async run(ctx) {
    if (ctx.dryRun) return plan(ctx);
    const settings = localSettings(ctx);
    return runExecutable({
      scriptsDir: settings.scriptsDir,
      target: ctx.config.target as string,
      params: { ...ctx.params },
      env: contextEnv(ctx),
      sandbox: ctx.sandboxMode,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
      maxOutputBytes: settings.maxOutputBytes,
      maxLogLines: settings.maxLogLines,
      killGraceMs: settings.killGraceMs,
      onLog: (level, message) => ctx.log(level, message),
    });
  },
});
