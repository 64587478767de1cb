import type { ScanConfig } from '../../config/scan-config.ts';
import type { Db } from '../db/create-db.ts';
import { toJson } from '../db/json.ts';
import type { Outbox } from '../events/outbox.ts';
import { assetRepository } from '../assets/asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import { scanFindingRepository } from './scan-finding-repository.ts';
import { scanRepository, type ScanRow } from './scan-repository.ts';
import { webhookDeliveryRepository } from '../webhooks/webhook-delivery-repository.ts';
import { newId } from '../ids.ts';
import { toIso } from '../time.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { durationSeconds } from './scan-views.ts';
import { scanCheckRepository } from './scan-check-repository.ts';
import { failedChecks, isFailedCheck } from './check-outcomes.ts';

/**
 * running -> completed | failed, once, by the worker holding the lease: the scan row,
 * scan.completed (finding_count, duration, asset_id, status, and the checks that failed:
 * a completed scan is not silently a partial one) or scan.failed (error), the asset's
 * last_scan, and the callback delivery row, all in one transaction.
 */
export async function finishScan(deps: { db: Db; outbox: Outbox; config: Pick<ScanConfig, 'callbacks'> }, row: ScanRow, token: string, status: 'completed' | 'failed', error: string | null): Promise<boolean> {
  const now = Date.now();
  return retryOnDeadlock(() => deps.outbox.transaction(async ({ trx, emit }) => {
    const { summary, total } = await scanFindingRepository.summary(trx, row.id);
    const checks = await scanCheckRepository.forScan(trx, row.id);
    const failed = failedChecks(checks);
    const checksFailed = checks.filter(isFailedCheck).length;
    const changes: Record<string, unknown> = {
      status, error, active_asset_id: null, completed_at: now, updated_at: now, locked_until: 0,
      current_phase: status, eta_seconds: 0, finding_summary: toJson(summary), finding_count: total, checks_failed: checksFailed,
    };
    if (status === 'completed') changes.progress = 100;
    if (!(await scanRepository.updateRunning(trx, row.id, token, changes))) return false;
    const fresh = (await scanRepository.row(trx, row.id))!;
    const duration = durationSeconds(fresh) ?? 0;
    if (status === 'completed') {
      await emit({
        tenantId: row.tenant_id, kind: 'scan.completed', assetId: row.asset_id,
        data: { scan_id: row.id, asset_id: row.asset_id, status, finding_count: total, duration, checks_total: checks.length, checks_failed: checksFailed, failed_checks: failed },
      });
    } else {
      await emit({ tenantId: row.tenant_id, kind: 'scan.failed', assetId: row.asset_id, data: { scan_id: row.id, asset_id: row.asset_id, error } });
    }
    await assetRepository.update(trx, row.tenant_id, row.asset_id, { last_scan: now, updated_at: now });
    if (fresh.callback_url) {
      const payload = {
        event: status === 'completed' ? 'scan.completed' : 'scan.failed',
        timestamp: new Date(now).toISOString(),
        data: {
          scan_id: row.id, asset_id: row.asset_id, scan_type: row.scan_type, status, error, finding_count: total, finding_summary: summary,
          started_at: toIso(fresh.started_at), completed_at: toIso(now), duration_seconds: duration,
          checks_total: checks.length, checks_failed: checksFailed, failed_checks: failed,
        },
      };
      // A delivery of the webhook queue, which signs, sends and retries it (core/webhooks/scan-callback-target.ts).
      await webhookDeliveryRepository.insertCallback(trx, {
        id: newId('dlv'), tenantId: row.tenant_id, scanId: row.id, url: fresh.callback_url, secretSealed: fresh.callback_secret_sealed,
        eventKind: payload.event, payload: toJson(payload), attemptsLeft: deps.config.callbacks.retryScheduleSeconds.length + 1, now,
      });
    }
    await changeClock.markChanged(trx, row.tenant_id, 'scans', now);
    await changeClock.markChanged(trx, row.tenant_id, 'assets', now);
    return true;
  }));
}
