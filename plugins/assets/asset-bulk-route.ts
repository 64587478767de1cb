import type { Readable } from 'node:stream';
import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { AppContext } from '../../core/app-context.ts';
import { PayloadTooLargeError } from '../../core/errors.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import { importAssets } from '../../core/assets/asset-import.ts';
import { csvRows, jsonRows, limitBytes } from '../../core/assets/asset-import-sources.ts';
import { importResultSchema } from './asset-schemas.ts';

/** POST /api/assets/bulk: streamed JSON or CSV import (see asset-import.ts for the transaction rules). */
export function assetBulkRoute(ctx: AppContext): ServerRoute {
  const { maxRows, maxBytes, batchSize } = ctx.config.assets.bulk;
  return {
    method: 'POST',
    path: '/api/assets/bulk',
    options: {
      auth: { access: { scope: ['assets:write'] } },
      tags: ['api', 'assets'],
      description: 'Import many assets from JSON or CSV',
      notes:
        'Body: `application/json` `{"assets": [{name, type, tags}]}` or `text/csv` with the header `name,type,tags` (tags in one quoted cell, comma-separated; the tags column may be left out). ' +
        'The body is streamed and inserted in batches; every row is validated like POST /api/assets. Good rows are imported, bad ones reported in `errors` as `{row, name, code, message}` ' +
        '(row = 1-based position among data rows, the CSV header not counted; codes such as invalid_type, invalid_domain, asset_exists, duplicate_in_import, invalid_row). ' +
        `Limits: ${maxRows} rows and ${maxBytes} bytes per request (configurable, assets.bulk); beyond them the answer is 413 payload_too_large and nothing is imported. ` +
        'A body that cannot be read at all (malformed JSON or CSV, wrong header) is a 400 and imports nothing: the import is one transaction. Emits asset.created per imported asset. Rate limit: 5 requests per minute.',
      plugins: { rampart: { rateLimit: endpointLimit('assets-bulk', 5), errors: [413] } },
      payload: { output: 'stream', parse: false, maxBytes, allow: ['application/json', 'text/csv'] },
      // The body is a stream (hapi cannot joi-validate it): every row is validated by the import itself.
      validate: { query: Joi.object({}) },
      response: { status: { 200: dataOf(importResultSchema, 'ImportResponse') } },
    },
    handler: async (request) => {
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        throw new PayloadTooLargeError(`An import body may be at most ${maxBytes} bytes; nothing was imported.`, { max_bytes: maxBytes });
      }
      const body = limitBytes(request.payload as Readable, maxBytes);
      const csv = String(request.headers['content-type'] ?? '').toLowerCase().startsWith('text/csv');
      const rows = csv ? csvRows(body) : jsonRows(body);
      try {
        return { data: await importAssets(ctx.services.assets, ctx.outbox, callerOf(request).tenantId, rows, { maxRows, batchSize }) };
      } finally {
        body.resume();
      }
    },
  };
}
