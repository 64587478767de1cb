import type { Probe, Proof } from './active-check.ts';

/** The delay time-based payloads ask for, unless the admin sets `time_delay_ms`. */
export const DEFAULT_DELAY_MS = 3000;

export function delayOf(probe: Pick<Probe, 'ctx'>): number {
  const n = Number(probe.ctx.options.time_delay_ms ?? DEFAULT_DELAY_MS);
  return Number.isFinite(n) && n >= 50 ? n : DEFAULT_DELAY_MS;
}

/** `3000` ms as the payload writes it: `3`, `0.3`, `0.25`. */
export function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(3)));
}

/** Per injection point, the faster of two plain answers: one slow first answer (a cold cache, a new connection) must not hide a delay. */
const references = new WeakMap<object, number>();

async function referenceOf(probe: Probe, timeout: number): Promise<number | null> {
  const known = references.get(probe.point);
  if (known !== undefined) return known;
  const again = await probe.send(probe.point.original, timeout);
  if (!again) return null;
  const ref = Math.min(probe.baseline.elapsedMs ?? 0, again.elapsedMs ?? 0);
  references.set(probe.point, ref);
  return ref;
}

/**
 * Does the payload delay the answer by the time it asks for? Asking for the delay D must
 * make the answer at least 0.8 D slower than the point's reference (the faster of two
 * plain answers); then asking for 0 s must be fast again (under half of D above the
 * reference), and asking for 2 D must be at least 1.6 D slower than that. Slowness that
 * does not follow the asked-for delay (a busy server, a slow first request) is never taken
 * for an injection. One request per payload when there is no delay (the common case).
 */
export async function provesDelay(probe: Probe, payload: (secs: string) => string, technique: string): Promise<Proof | null> {
  const delay = delayOf(probe);
  const timeout = Math.min(Math.max(10_000, delay * 4), probe.ctx.timeoutMs);
  const ref = await referenceOf(probe, timeout);
  if (ref === null) return null;
  const first = await probe.send(payload(seconds(delay)), timeout);
  if (!first || (first.elapsedMs ?? 0) < ref + delay * 0.8) return null;
  const control = await probe.send(payload('0'), timeout);
  if (!control || (control.elapsedMs ?? 0) >= ref + delay * 0.5) return null;
  const double = await probe.send(payload(seconds(2 * delay)), timeout);
  if (!double || (double.elapsedMs ?? 0) < (control.elapsedMs ?? 0) + delay * 1.6) return null;
  return {
    payload: payload(seconds(delay)),
    technique,
    indicator: `plain answer ${ref} ms; asking for ${seconds(delay)} s took ${first.elapsedMs} ms, for 0 s ${control.elapsedMs} ms, for ${seconds(2 * delay)} s ${double.elapsedMs} ms`,
    confirmations: [payload('0'), payload(seconds(2 * delay))],
  };
}
