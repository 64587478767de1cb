import type { LogLevel } from '../plugin-api/index.ts';
import type { NewLogLine } from './execution-rows.ts';
import type { SecretScrubber } from './secret-scrubber.ts';

const LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];
const MAX_MESSAGE_CHARS = 4000;

/**
 * One attempt's log: lines are scrubbed of secrets and bounded as they are written (so
 * nothing unscrubbed is ever held for storage), buffered, and drained by the worker
 * into action_execution_logs on each heartbeat and when the attempt ends.
 */
export class RunLog {
  #pending: NewLogLine[] = [];
  #count = 0;
  #dropped = 0;

  constructor(
    private readonly run: { executionId: string; tenantId: string; attempt: number },
    private readonly scrubber: SecretScrubber,
    private readonly maxLines: number,
    private readonly clock: () => number = Date.now,
  ) {}

  write = (level: LogLevel, message: string): void => {
    if (this.#count >= this.maxLines) {
      this.#dropped += 1;
      return;
    }
    this.#count += 1;
    const lvl = LEVELS.includes(level) ? level : 'INFO';
    const text = this.scrubber.text(String(message)).slice(0, MAX_MESSAGE_CHARS);
    this.#pending.push({ executionId: this.run.executionId, tenantId: this.run.tenantId, attempt: this.run.attempt, level: lvl, message: text, at: this.clock() });
  };

  /** The buffered lines (and one line saying how many were dropped, once the attempt ends). */
  drain(final = false): NewLogLine[] {
    const out = this.#pending;
    this.#pending = [];
    if (final && this.#dropped > 0) {
      out.push({ ...this.run, level: 'WARN', message: `${this.#dropped} further log lines were dropped (limit ${this.maxLines} per attempt)`, at: this.clock() });
      this.#dropped = 0;
    }
    return out;
  }
}
