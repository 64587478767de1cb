/**
 * The `webhook` executor (reference view `executor: "webhook"`): one templated HTTP
 * request, `{{ parameter }}` placeholders escaped for the URL, the headers and a JSON or
 * text body, sent through the platform's SSRF-guarded client.
 */
import { defineExecutor, type ExecutorContext, type ExecutorResult } from '../../core/plugin-api/index.ts';
import { failureOf } from '../_lib/failure-of.ts';
import { hostOf } from '../_lib/http-result.ts';
import { buildWebhookRequest, planOf, toHttpRequest, WEBHOOK_METHODS, webhookResult } from './webhook-request.ts';

async function run(ctx: ExecutorContext): Promise<ExecutorResult> {
  try {
    const req = buildWebhookRequest(ctx);
    if (ctx.dryRun) return { status: 'completed', output: { dry_run: true }, plan: planOf(req) };
    const res = await ctx.http.request(toHttpRequest(req, ctx));
    // The host only: the path, query and headers may carry rendered secrets.
    ctx.log('INFO', `${req.method} ${hostOf(req.url)}: HTTP ${res.statusCode}`);
    return webhookResult(res, req.url);
  } catch (err) {
    return failureOf(err, ctx);
  }
}

export default defineExecutor({
  name: 'webhook',
  version: '1.0.0',
  apiVersion: '^1.3.0',
  description: 'Sends one templated HTTP request ({{ parameter }} placeholders in the URL, headers and body).',
  capabilities: ['net:outbound', 'secrets:read'],
  executorKind: 'webhook',
  configSchema: {
    url: { type: 'string', required: true, description: 'URL template; each placeholder is one encoded component, or the whole URL when it is a single placeholder.' },
    method: { type: 'string', enum: WEBHOOK_METHODS, default: 'POST' },
    headers: { type: 'object', description: 'Header name to value template (text; CR, LF and NUL refused).' },
    body_template: { type: 'string', description: 'Body template: JSON-escaped when the content type is JSON or unset, else text.' },
  },
  run,
});
