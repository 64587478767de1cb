/**
 * The one heartbeat of durable work: calls `beat` every `everyMs`, never two at once (a
 * slow beat delays the next rather than piling up), and `stop()` waits for a beat in
 * flight, so nothing the beat writes lands after the work it belongs to has settled.
 * The lease worker (core/work/lease-worker.ts) renews leases with it; the agent
 * (agent/job-session.ts) posts its job's log lines with it, which double as its lease.
 * It depends on nothing, so any side of the wire can use it.
 */
export class Heartbeat {
  readonly #everyMs: number;
  readonly #beat: () => Promise<void>;
  readonly #onError: (err: unknown) => void;
  #timer: ReturnType<typeof setInterval> | null = null;
  #beating: Promise<void> | null = null;

  constructor(o: { everyMs: number; beat: () => Promise<void>; onError?: (err: unknown) => void }) {
    this.#everyMs = Math.max(1, o.everyMs);
    this.#beat = o.beat;
    this.#onError = o.onError ?? (() => {});
  }

  get running(): boolean {
    return this.#timer !== null;
  }

  start(): this {
    this.#timer ??= setInterval(() => void this.now(), this.#everyMs);
    return this;
  }

  /** Beats now unless a beat is in flight; resolves when the beat (this one or the one in flight) has ended. */
  now(): Promise<void> {
    this.#beating ??= this.#beat()
      .catch((err: unknown) => this.#onError(err))
      .finally(() => (this.#beating = null));
    return this.#beating;
  }

  /** No more beats; resolves once a beat in flight has ended. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating;
  }
}
