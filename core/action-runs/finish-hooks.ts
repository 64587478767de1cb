import type { Transaction } from '../db/create-db.ts';
import type { ExecutionRow } from './execution-rows.ts';

/** Called inside the transaction that ends an execution of the given parent kind. */
export type FinishHook = (row: ExecutionRow & { status: string }, trx: Transaction) => Promise<void>;

/**
 * What a parent of action runs (a playbook step) learns when one ends: its hook runs in
 * the same transaction as the final state, so the parent's wake-up commits exactly when
 * the run's end does (never one without the other, whatever crashes in between). The
 * actions feature knows nothing of its parents beyond the kind string.
 */
export class FinishHooks {
  readonly #hooks = new Map<string, FinishHook>();

  onFinished(kind: string, hook: FinishHook): void {
    if (this.#hooks.has(kind)) throw new Error(`a finish hook for "${kind}" is already registered`);
    this.#hooks.set(kind, hook);
  }

  async run(row: ExecutionRow, status: string, trx: Transaction): Promise<void> {
    const hook = row.parent_kind ? this.#hooks.get(row.parent_kind) : undefined;
    if (hook) await hook({ ...row, status: status as ExecutionRow['status'] }, trx);
  }
}
