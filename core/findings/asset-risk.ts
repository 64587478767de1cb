import type { Queryable } from '../db/create-db.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { findingRepository } from './finding-repository.ts';
import { findingSummary, riskScore } from './risk-score.ts';

/**
 * Recomputes risk_score and finding_summary of these assets from their unresolved
 * findings. Called in the same transaction as every change to findings, so the
 * stored values never lag behind them.
 */
export async function refreshAssetRisk(db: Queryable, assetIds: Iterable<string>, now = Date.now()): Promise<void> {
  for (const id of new Set(assetIds)) {
    const groups = await findingRepository.openGroups(db, id);
    await assetRepository.setRisk(db, id, findingSummary(groups), riskScore(groups), now);
  }
}
