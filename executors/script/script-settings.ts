import type { ExecutorContext, OptionsSchema } from '../../core/plugin-api/index.ts';

/** The admin settings (`plugins.builtinOptions.script` or the engine's `executors.script`). */
export const SCRIPT_OPTIONS: OptionsSchema = {
  memoryMb: { type: 'integer', default: 64, min: 8, max: 1024, description: 'Heap limit of each script isolate.' },
  maxOutputBytes: { type: 'integer', default: 1_048_576, min: 1024, max: 16_777_216, description: 'Largest return value, as JSON text.' },
  maxLogLines: { type: 'integer', default: 1000, min: 1, max: 100_000, description: 'log() lines kept per run; the rest are dropped with one WARN.' },
  maxHttpCalls: { type: 'integer', default: 50, min: 0, max: 10_000, description: 'http() calls allowed per run.' },
  maxHttpBytes: { type: 'integer', default: 1_048_576, min: 1024, max: 16_777_216, description: 'Largest http() request body, and response bytes kept.' },
};

export interface ScriptSettings {
  memoryMb: number;
  maxOutputBytes: number;
  maxLogLines: number;
  maxHttpCalls: number;
  maxHttpBytes: number;
}

/** Settings with defaults applied (the loader fills them too; a test context may not). */
export function scriptSettings(ctx: Pick<ExecutorContext, 'settings'>): ScriptSettings {
  const s = ctx.settings ?? {};
  const int = (name: keyof ScriptSettings): number => {
    const v = s[name];
    const field = SCRIPT_OPTIONS[name]!;
    return typeof v === 'number' && Number.isInteger(v) && v >= (field.min ?? 0) && v <= (field.max ?? Infinity) ? v : (field.default as number);
  };
  return { memoryMb: int('memoryMb'), maxOutputBytes: int('maxOutputBytes'), maxLogLines: int('maxLogLines'), maxHttpCalls: int('maxHttpCalls'), maxHttpBytes: int('maxHttpBytes') };
}
