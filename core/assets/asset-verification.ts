import { randomBytes } from 'node:crypto';
import type { Db } from '../db/create-db.ts';
import { ConflictError, InputError, NotFoundError } from '../errors.ts';
import type { Outbox } from '../events/outbox.ts';
import { assetRepository, type AssetRow } from './asset-repository.ts';
import { changeClock } from '../db/change-clock.ts';
import { runCheck, type CheckOptions, type CheckOutcome } from './verification-checks.ts';
import { methodPlans, type MethodPlan, type VerificationMethod } from './verification-methods.ts';

export interface IssuedVerification {
  asset_id: string;
  verification_method: VerificationMethod;
  verification_token: string;
  instructions: string;
  methods: Array<{ method: VerificationMethod; target: string; instructions: string }>;
}

export interface VerificationResult extends CheckOutcome {
  asset_id: string;
  method: VerificationMethod;
  status: string;
}

/**
 * Ownership verification: a per-asset token, published by the owner through one of the
 * methods (verification-methods.ts), then checked for real over DNS or HTTP(S). The
 * token stays the same across repeated `verify` calls, so a record already published
 * keeps working; success sets verified=true, status=active and emits asset.verified.
 */
export class AssetVerificationService {
  readonly #db: Db;
  readonly #outbox: Outbox;
  readonly #options: CheckOptions;

  constructor(db: Db, outbox: Outbox, options: CheckOptions) {
    this.#db = db;
    this.#outbox = outbox;
    this.#options = options;
  }

  #plans(asset: AssetRow, token: string): MethodPlan[] {
    const plans = methodPlans(asset.type, asset.name, token);
    if (!plans.length) throw new InputError('Network ranges cannot be verified by DNS or HTTP checks: there is no single host to check.', 'verification_not_supported');
    return plans;
  }

  #pick(plans: MethodPlan[], method: VerificationMethod | undefined): MethodPlan {
    const plan = method ? plans.find((p) => p.method === method) : plans[0];
    if (!plan) throw new InputError(`Method ${method} does not apply to this asset; use one of ${plans.map((p) => p.method).join(', ')}.`, 'method_not_applicable');
    return plan;
  }

  async issue(tenantId: string, id: string, method?: VerificationMethod): Promise<IssuedVerification> {
    const asset = await assetRepository.findById(this.#db, tenantId, id);
    if (!asset) throw new NotFoundError('Asset');
    const token = asset.verification_token ?? `rv-${randomBytes(20).toString('hex')}`;
    const plans = this.#plans(asset, token);
    const plan = this.#pick(plans, method);
    const now = Date.now();
    await this.#db.transaction(async (trx) => {
      await assetRepository.update(trx, tenantId, id, {
        verification_token: token,
        verification_method: plan.method,
        verification_issued_at: asset.verification_issued_at ?? now,
        updated_at: now,
      });
      await changeClock.markChanged(trx, tenantId, 'assets', now);
    });
    return {
      asset_id: id,
      verification_method: plan.method,
      verification_token: token,
      instructions: plan.instructions,
      methods: plans.map((p) => ({ method: p.method, target: p.target, instructions: p.instructions })),
    };
  }

  async check(tenantId: string, id: string, method?: VerificationMethod): Promise<VerificationResult> {
    const asset = await assetRepository.findById(this.#db, tenantId, id);
    if (!asset) throw new NotFoundError('Asset');
    const token = asset.verification_token;
    if (!token) throw new ConflictError('No verification token has been issued for this asset; call POST /api/assets/{id}/verify first.', 'verification_not_issued');
    const plan = this.#pick(this.#plans(asset, token), method ?? (asset.verification_method as VerificationMethod | null) ?? undefined);
    const outcome = await runCheck(plan, this.#options);
    let status = asset.status as string;
    if (outcome.verified) {
      status = await this.#outbox.transaction(async ({ trx, emit }) => {
        const current = await assetRepository.findById(trx, tenantId, id, true);
        if (!current) throw new NotFoundError('Asset');
        if (current.verified) return current.status;
        const now = Date.now();
        await assetRepository.update(trx, tenantId, id, { verified: true, status: 'active', verified_at: now, verification_method: plan.method, updated_at: now });
        await emit({ tenantId, kind: 'asset.verified', assetId: id, data: { asset_id: id, name: current.name, type: current.type, method: plan.method } });
        await changeClock.markChanged(trx, tenantId, 'assets', now);
        return 'active';
      });
    }
    return { asset_id: id, method: plan.method, status, ...outcome };
  }
}
