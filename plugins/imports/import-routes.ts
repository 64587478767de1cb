import type { Readable } from 'node:stream';
import type { ServerRoute } from '@hapi/hapi';
import type { AppContext } from '../../core/app-context.ts';
import { PayloadTooLargeError } from '../../core/errors.ts';
import { callerOf } from '../../core/http/auth-scheme.ts';
import { dataOf } from '../../core/http/pagination.ts';
import { endpointLimit } from '../../core/http/rate-limit-settings.ts';
import type { ImportFormat } from '../../core/imports/import-result.ts';
import { importQuery, importSummarySchema } from './import-schemas.ts';

interface ImportQuery {
  format?: ImportFormat;
  asset_id?: string;
  map?: string[];
  map_by_name: boolean;
  scan_id?: string;
}

/** `a=b=ast_…` maps `a=b` (a URL may hold `=`): the asset id is after the last `=`. */
function mappingOf(entries: string[] = []): Record<string, string> {
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.lastIndexOf('=')), e.slice(e.lastIndexOf('=') + 1)]));
}

const CONTENT_TYPES = ['application/json', 'application/sarif+json', 'application/x-ndjson', 'application/jsonl', 'application/json-seq', 'application/xml', 'text/xml', 'text/plain', 'application/octet-stream'];

/** POST /api/findings/import: a tool's own result file becomes findings (core/imports). */
export function importRoutes(ctx: AppContext): ServerRoute[] {
  const { maxBytes, maxResults, uploadTimeoutMs } = ctx.config.imports;
  return [
    {
      method: 'POST',
      path: '/api/findings/import',
      options: {
        auth: { access: { scope: ['findings:write'] } },
        tags: ['api', 'findings'],
        description: 'Import another tool\'s results (SARIF, nuclei, ZAP, nmap XML, bandit and gitleaks JSON) as findings',
        notes: [
          'The body is the tool\'s own file, unchanged (any of ' + CONTENT_TYPES.join(', ') + '); the query says which tool wrote it (or, without `format`, Rampart tells it from the file and says so in `format_detected`) and which asset each result belongs to: `asset_id` for all, `map=<target>=<asset id>` (repeatable) per target, and/or `map_by_name=true` to use the tenant\'s asset named like the target. Every result needs an asset, or nothing is imported (400 unmapped_target, listing them).',
          'The whole file is validated before anything is written: another format (400 import_format_mismatch), a file whose tool cannot be told without `format` (400 import_format_unknown), a malformed file or one that breaks the format (SARIF: the official 2.1.0 schema) is a 400 invalid_import_file whose `details[0].field` names the JSON path (`$.runs[0].results[3].level`) or the line (`line 17`, `line 12, column 7` for malformed JSON or XML), and nothing changes. An unknown asset is a 400 unknown_asset, a scan_id not of the tenant a 404, a scan of another asset 400 scan_asset_mismatch.',
          'Findings go through the scan engine\'s rules: the dedup key (asset, the tool\'s rule, the result\'s location) makes a re-import create nothing (counted in `seen_again`; last_seen and evidence are refreshed), a resolved finding found again after its resolution is reopened, and every new finding has its status history, the asset\'s risk score and a finding.new event. Severity follows a CVSS vector when the tool gives one, else the tool\'s 0–10 score, else its severity at the lowest score of that band; `cvss_vector` is then empty. Details per tool: docs/importers.md.',
          `Limits: ${maxBytes} bytes (413 payload_too_large; the upload is streamed to a temporary file, never held in memory), ${maxResults} results (413), uploads must arrive within ${uploadTimeoutMs} ms. Rate limit: 10 imports per minute per tenant.`,
        ].join('\n\n'),
        plugins: { rampart: { rateLimit: endpointLimit('findings-import', 10), errors: [413, 415] } },
        // hapi would answer an oversized Content-Length with a bare 413; the handler and the spool enforce imports.maxBytes.
        payload: { output: 'stream', parse: false, maxBytes: Number.MAX_SAFE_INTEGER, allow: CONTENT_TYPES, timeout: uploadTimeoutMs },
        // The body is the tool's file, validated by the importer itself.
        validate: { query: importQuery },
        response: { status: { 200: dataOf(importSummarySchema, 'FindingImportResponse') } },
      },
      handler: async (request) => {
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          throw new PayloadTooLargeError(`An import file may be at most ${maxBytes} bytes; nothing was imported.`, { max_bytes: maxBytes });
        }
        const caller = callerOf(request);
        const q = request.query as unknown as ImportQuery;
        const body = request.payload as Readable;
        try {
          const summary = await ctx.services.imports.importFile({
            tenantId: caller.tenantId,
            actor: caller.userId ?? caller.tokenId,
            format: q.format ?? null,
            body,
            mapping: { assetId: q.asset_id ?? null, map: mappingOf(q.map), byName: q.map_by_name },
            scanId: q.scan_id ?? null,
          });
          return { data: summary };
        } finally {
          body.resume();
        }
      },
    },
  ];
}
