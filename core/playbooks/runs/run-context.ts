import { fromJson } from '../../db/json.ts';
import type { RunContext } from '../language/templates.ts';
import type { RunRow, StepRunRow, TriggerEventRef } from './run-rows.ts';

/**
 * What a step's placeholders and a condition step's `if` read: the triggering event, the
 * finding it carries (`finding.*` events: its data, with `id` = `finding_id`), the run's
 * asset, the run's parameters and every ended step's `{status, output}` — for an action
 * step `output` is the action's own output (`{{ steps.s1.output.ip }}`), for a condition
 * step `{result}`.
 */
export function contextOf(run: RunRow, steps: StepRunRow[]): RunContext {
  const event = fromJson<TriggerEventRef | null>(run.trigger_event, null);
  return baseContext(event, fromJson(run.asset, null), fromJson(run.parameters, {}), stepsContext(steps));
}

export function baseContext(event: { kind: string; data: Record<string, unknown> } | null, asset: Record<string, unknown> | null, parameters: Record<string, unknown>, steps: RunContext['steps']): RunContext {
  const finding = event && event.kind.startsWith('finding.') ? { ...event.data, id: event.data.finding_id } : null;
  return { event: event ? { kind: event.kind, data: event.data } : null, finding, asset, parameters, steps };
}

export function stepsContext(rows: StepRunRow[]): RunContext['steps'] {
  const out: RunContext['steps'] = {};
  for (const r of rows) {
    if (r.status !== 'completed' && r.status !== 'failed') continue;
    const output = fromJson<Record<string, unknown> | null>(r.output, null);
    out[r.step_id] = { status: r.status, output: r.type === 'action' ? (output?.output ?? {}) : (output ?? {}) };
  }
  return out;
}

/** The asset placeholders see when the run has no explicit target: the event's (`data.asset`). */
export function eventAsset(data: Record<string, unknown> | undefined): Record<string, unknown> | null {
  const asset = data?.asset;
  return asset && typeof asset === 'object' && !Array.isArray(asset) ? (asset as Record<string, unknown>) : null;
}
