import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import type { VerificationMethod } from '../../core/assets/verification-methods.ts';
import { assetIdParams, checkPayload, issuedVerificationSchema, verificationResultSchema, verifyPayload } from './asset-schemas.ts';

const write = { access: { scope: ['assets:write'] } };
const tags = ['api', 'assets'];

/** Ownership verification: issue a token, then run the check. */
export function assetVerifyRoutes(ctx: AppContext): ServerRoute[] {
  const service = ctx.services.assetVerification;
  return [
    {
      method: 'POST',
      path: '/api/assets/{id}/verify',
      options: {
        auth: write,
        tags,
        description: 'Start ownership verification: get the token and instructions',
        notes:
          'Returns the asset\'s verification token (the same token on every call, so a published record keeps working), the chosen method with its instructions, and `methods` with the instructions for every method that applies: ' +
          '`dns_txt` (TXT record "rampart-verification=<token>" at the domain or URL host), `meta_tag` (<meta name="rampart-verification" content="<token>"> on the page: the URL itself, or https:// then http:// of a domain/IP), ' +
          '`file` (text file /.well-known/rampart-verification.txt containing the token). Network ranges cannot be verified (400 verification_not_supported). Then call POST /api/assets/{id}/verify/check.',
        validate: { params: assetIdParams, payload: verifyPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(issuedVerificationSchema, 'IssuedVerificationResponse') } },
      },
      handler: async (request) => {
        const method = (request.payload as { method?: VerificationMethod } | null)?.method;
        return { data: await service.issue(callerOf(request).tenantId, String(request.params.id), method) };
      },
    },
    {
      method: 'POST',
      path: '/api/assets/{id}/verify/check',
      options: {
        auth: write,
        tags,
        description: 'Run the ownership check now',
        notes:
          'Performs the real check: a DNS TXT lookup through the configured resolvers (verification.resolvers, default the system\'s), or an HTTP(S) GET of the page (meta tag) or the file. ' +
          'A check that ran answers 200 whatever its outcome: `verified` says whether it passed, and on failure `code` (record_not_found, token_mismatch, http_error, unreachable, destination_refused, dns_error), `message` and `found` say what was found instead (TXT values; of a page only its HTTP status or token-shaped values). ' +
          'On success the asset becomes verified=true, status=active and asset.verified is emitted once, with data {asset_id, name, type, method}. HTTP probes obey the outbound address policy (private, loopback and link-local addresses only when allow-listed by outbound.allowPrivateCidrs; verification.denyNetworks never) and follow redirects within the same origin only. 409 verification_not_issued before POST /verify.',
        validate: { params: assetIdParams, payload: checkPayload, query: Joi.object({}) },
        response: { status: { 200: dataOf(verificationResultSchema, 'VerificationResultResponse') } },
      },
      handler: async (request) => {
        const method = (request.payload as { method?: VerificationMethod } | null)?.method;
        return { data: await service.check(callerOf(request).tenantId, String(request.params.id), method) };
      },
    },
  ];
}
