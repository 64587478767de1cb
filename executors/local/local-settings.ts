import { resolve } from 'node:path';
import type { ExecutorContext, OptionsSchema } from '../../core/plugin-api/index.ts';

/** The admin settings (`executors.local.*`, env `RAMPART__executors__local__<name>`). */
export const LOCAL_OPTIONS: OptionsSchema = {
  scriptsDir: {
    type: 'string',
    default: './executors-scripts',
    description: 'Directory of admin-installed executables; a relative path is taken from the server\'s working directory.',
  },
  maxOutputBytes: { type: 'integer', default: 1_048_576, min: 1024, max: 67_108_864, description: 'Bytes of stdout kept; beyond this the run is stopped and failed (output_too_large).' },
  maxLogLines: { type: 'integer', default: 1000, min: 1, max: 100_000, description: 'Stderr lines kept as log lines per run.' },
  killGraceMs: { type: 'integer', default: 1000, min: 0, max: 60_000, description: 'Time between SIGTERM and SIGKILL of the process group; keep it below executors.killGraceMs.' },
};

export interface LocalSettings {
  scriptsDir: string;
  maxOutputBytes: number;
  maxLogLines: number;
  killGraceMs: number;
}

function int(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/** The settings with defaults applied (the loader fills them too, but a test context or older engine may not). */
export function localSettings(ctx: Pick<ExecutorContext, 'settings'>): LocalSettings {
  const s = ctx.settings ?? {};
  return {
    scriptsDir: resolve(typeof s.scriptsDir === 'string' && s.scriptsDir !== '' ? s.scriptsDir : (LOCAL_OPTIONS.scriptsDir!.default as string)),
    maxOutputBytes: int(s.maxOutputBytes, LOCAL_OPTIONS.maxOutputBytes!.default as number),
    maxLogLines: int(s.maxLogLines, LOCAL_OPTIONS.maxLogLines!.default as number),
    killGraceMs: int(s.killGraceMs, LOCAL_OPTIONS.killGraceMs!.default as number),
  };
}

/** Context for the executable, as environment variables (never parameters: those go on stdin). */
export function contextEnv(ctx: Pick<ExecutorContext, 'executionId' | 'attempt' | 'actionType' | 'asset' | 'target'>): Record<string, string> {
  const env: Record<string, string> = {
    RAMPART_EXECUTION_ID: ctx.executionId,
    RAMPART_ATTEMPT: String(ctx.attempt),
    RAMPART_ACTION_TYPE: ctx.actionType,
  };
  if (ctx.asset) Object.assign(env, { RAMPART_ASSET_ID: ctx.asset.id, RAMPART_ASSET_TYPE: ctx.asset.type, RAMPART_ASSET_VALUE: ctx.asset.value });
  else if (ctx.target) env.RAMPART_ASSET_ID = ctx.target;
  // An environment value cannot hold NUL; such a value is dropped rather than failing the run.
  for (const [k, v] of Object.entries(env)) if (v.includes('\0')) delete env[k];
  return env;
}
