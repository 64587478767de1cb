import type { Db, Queryable } from '../db/create-db.ts';
import type { EventPayloads } from '../domain/event-payloads.ts';
import type { Outbox } from '../events/outbox.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import { dialectOf } from '../db/create-db.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { ConflictError, NotFoundError } from '../errors.ts';
import { newId } from '../ids.ts';
import { refreshAssetRisk } from './asset-risk.ts';
import { assetShare } from './finding-counters.ts';
import { findingHistoryRepository } from './finding-history-repository.ts';
import { findingIngestRepository } from './finding-ingest-repository.ts';
import { findingMergeRepository } from './finding-merge-repository.ts';
import { findingRepository, type FindingRow } from './finding-repository.ts';
import { findingWordRepository } from './finding-word-repository.ts';

/** What a merge or split answers: the kept finding and the ids that left or came back. */
export interface MergeResult {
  id: string;
  merged_ids: string[];
}

export interface SplitResult {
  id: string;
  restored_ids: string[];
}

/**
 * Manual merge and split (docs/finding-fingerprints.md#merge-and-split). A merge keeps one
 * finding and folds others of the same asset into it: their notes, status history and
 * sources move to it, its fingerprint gains their keys, and they are deleted, each with a
 * record that undoes it. A split restores merged findings as they were, with what moved
 * back. No finding's status changes in either (no finding.status_changed); both add a
 * note to the kept finding, and the counters, risk and change clocks follow.
 */
export class FindingMergeService {
  readonly #outbox: Outbox<EventPayloads>;

  constructor(_db: Db, outbox: Outbox<EventPayloads>) {
    this.#outbox = outbox;
  }

  async merge(tenantId: string, id: string, otherIds: string[], actor: string): Promise<MergeResult> {
    return retryOnDeadlock(() => this.#outbox.transaction(({ trx }) => foldFindings(trx, tenantId, id, otherIds, actor)));
  }

  async split(tenantId: string, id: string, only: string[] | undefined, actor: string): Promise<SplitResult> {
    return retryOnDeadlock(() => this.#outbox.transaction(async ({ trx }) => {
      const kept = await lockedFinding(trx, tenantId, id);
      const open = await findingMergeRepository.mergesInto(trx, id, true);
      if (!open.length) throw new ConflictError(`Finding ${id} has no merge to undo.`, 'not_merged');
      const notMerged = only?.find((o) => !open.some((m) => m.merged_id === o));
      if (notMerged) throw new ConflictError(`Finding ${notMerged} was not merged into ${id} (or was split out already).`, 'not_merged');
      const chosen = open.filter((m) => !only || only.includes(m.merged_id));
      const now = Date.now();
      const before = await assetShare.read(trx, tenantId, kept.asset_id);
      // Newest first: each merge is undone in the state it left.
      for (const m of chosen) {
        await findingMergeRepository.restoreFinding(trx, m.snapshot.row);
        const restored = m.snapshot.row as { id: string; tenant_id: string; title: string; description: string };
        if (dialectOf(trx) === 'mysql') await findingWordRepository.add(trx, [{ id: restored.id, tenantId: restored.tenant_id, title: restored.title, description: restored.description }]);
        await findingMergeRepository.reassign(trx, m.moved, m.merged_id);
        await findingMergeRepository.dropKeys(trx, id, m.moved.gainedKeys);
        await findingIngestRepository.addKeys(trx, m.snapshot.keys.map((k) => ({ tenantId, assetId: kept.asset_id, findingId: m.merged_id, key: { kind: k.kind, value: k.value, hash: k.key_hash } })));
        await findingMergeRepository.markSplit(trx, m.id, actor, now);
      }
      const restoredIds = chosen.map((m) => m.merged_id);
      await finish(trx, tenantId, kept, actor, now, `Split ${restoredIds.join(', ')} back out of this finding.`, before);
      return { id, restored_ids: restoredIds };
    }));
  }
}

/**
 * The merge itself, in the caller's transaction (the service's, or a re-dedup batch's):
 * 404 when a finding is not the tenant's, 409 merge_across_assets, else the others are folded in.
 */
export async function foldFindings(trx: Queryable, tenantId: string, id: string, otherIds: string[], actor: string): Promise<MergeResult> {
  const kept = await lockedFinding(trx, tenantId, id);
  const others = await findingRepository.findManyByIds(trx, tenantId, otherIds);
  const missing = otherIds.find((o) => !others.some((r) => r.id === o));
  if (missing) throw new NotFoundError('Finding');
  const elsewhere = others.find((o) => o.asset_id !== kept.asset_id);
  if (elsewhere) throw new ConflictError(`Finding ${elsewhere.id} is on another asset: only findings of one asset can be merged.`, 'merge_across_assets');
  const now = Date.now();
  const before = await assetShare.read(trx, tenantId, kept.asset_id);
  for (const other of otherIds) {
    const row = await findingMergeRepository.rawRow(trx, other);
    const keys = await findingMergeRepository.keys(trx, other);
    const had = new Set((await findingMergeRepository.keys(trx, id)).map((k) => k.key_hash));
    const moved = await findingMergeRepository.move(trx, other, id);
    const gained = keys.filter((k) => !had.has(k.key_hash));
    await findingIngestRepository.addKeys(trx, gained.map((k) => ({ tenantId, assetId: kept.asset_id, findingId: id, key: { kind: k.kind, value: k.value, hash: k.key_hash } })));
    await findingMergeRepository.record(trx, { tenantId, survivorId: id, mergedId: other, snapshot: { row, keys }, moved: { ...moved, gainedKeys: gained.map((k) => k.key_hash) }, by: actor, now });
    await findingMergeRepository.deleteFinding(trx, other);
  }
  await finish(trx, tenantId, kept, actor, now, `Merged ${otherIds.join(', ')} into this finding.`, before);
  return { id, merged_ids: otherIds };
}

/** The finding, its asset locked first (the order every finding write takes), or 404. */
async function lockedFinding(trx: Queryable, tenantId: string, id: string): Promise<FindingRow> {
  const peek = await findingRepository.findById(trx, tenantId, id);
  if (!peek || !(await assetRepository.findById(trx, tenantId, peek.asset_id, true))) throw new NotFoundError('Finding');
  const row = await findingRepository.findById(trx, tenantId, id, true);
  if (!row) throw new NotFoundError('Finding');
  return row;
}

async function finish(trx: Queryable, tenantId: string, kept: FindingRow, actor: string, now: number, text: string, before: Awaited<ReturnType<typeof assetShare.read>>): Promise<void> {
  await findingHistoryRepository.addNote(trx, { id: newId('note', now), tenantId, findingId: kept.id, author: actor, text, now });
  await findingRepository.touch(trx, kept.id, actor, now);
  await refreshAssetRisk(trx, [kept.asset_id], now);
  await assetShare.applyChange(trx, tenantId, before, await assetShare.read(trx, tenantId, kept.asset_id));
  await changeClock.markChanged(trx, tenantId, 'findings', now);
  await changeClock.markChanged(trx, tenantId, 'assets', now);
}
