import type { MessagePort } from 'node:worker_threads';
import type { DiscoveredService, ScannerCheck, ScannerPlugin, ScanTarget } from '../plugin-api/index.ts';
import { runCheck, type CheckAttempt } from '../plugins/run-check.ts';
import { scopeFunction, type ScopeSpec } from './scan-scope.ts';

/** One check to run, as plain data: the plugin's module URL and the check's id, never a function. */
export interface CheckTask {
  moduleUrl: string;
  checkId: string;
  target: ScanTarget;
  options: Record<string, unknown>;
  scope: ScopeSpec;
  timeoutMs: number;
  /** Services found earlier in the scan, for checks consuming them. */
  services?: DiscoveredService[];
  /** Findings are posted here as they are reported; a `cancel` message aborts the check. */
  port: MessagePort;
}

const modules = new Map<string, Promise<ScannerPlugin>>();

async function pluginAt(moduleUrl: string): Promise<ScannerPlugin> {
  let loading = modules.get(moduleUrl);
  if (!loading) {
    loading = import(moduleUrl).then((mod: Record<string, unknown>) => {
      let candidate = (mod.default ?? mod.plugin) as Record<string, unknown>;
      if (candidate && !('kind' in candidate) && 'default' in candidate) candidate = candidate.default as Record<string, unknown>;
      return candidate as unknown as ScannerPlugin;
    });
    modules.set(moduleUrl, loading);
  }
  return loading;
}

/** Runs inside a piscina thread: load the plugin module (cached per thread), run one check. */
export default async function runCheckTask(task: CheckTask): Promise<CheckAttempt> {
  const controller = new AbortController();
  task.port.on('message', (message: { type?: string }) => {
    if (message?.type === 'cancel') controller.abort(new Error('cancelled'));
  });
  try {
    const plugin = await pluginAt(task.moduleUrl);
    const check: ScannerCheck | undefined = plugin?.checks?.find((c) => c.id === task.checkId);
    if (!check) return { checkId: task.checkId, status: 'error', findings: [], logs: [], error: `check ${task.checkId} not found in ${task.moduleUrl}`, durationMs: 0 };
    return await runCheck(check, task.target, {
      options: task.options,
      timeoutMs: task.timeoutMs,
      signal: controller.signal,
      inScope: scopeFunction(task.scope),
      deny: task.scope.deny,
      services: task.services,
      onFinding: (finding) => task.port.postMessage({ type: 'finding', finding }),
      onProgress: (fraction) => task.port.postMessage({ type: 'progress', fraction }),
    });
  } catch (err) {
    return { checkId: task.checkId, status: 'error', findings: [], logs: [], error: (err as Error)?.message ?? String(err), durationMs: 0 };
  } finally {
    task.port.close();
  }
}
