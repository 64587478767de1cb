/**
 * A reader's memory of the holes in event ids it is waiting on: when it first saw each.
 * A hole an open transaction holds is waited on (readable-prefix.ts); this clock bounds the
 * wait, so one stuck transaction cannot stop a reader for good.
 */
export class GapClock {
  readonly #firstSeen = new Map<number, number>();

  /** How long this reader has been waiting for `id` (0 when it notices the gap now). */
  waited(id: number, now: number): number {
    const seen = this.#firstSeen.get(id);
    if (seen !== undefined) return now - seen;
    this.#firstSeen.set(id, now);
    return 0;
  }

  /** The reader moved to `position`: gaps at or before it are settled. */
  passed(position: number): void {
    for (const id of this.#firstSeen.keys()) if (id <= position) this.#firstSeen.delete(id);
  }
}
