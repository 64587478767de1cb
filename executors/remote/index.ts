/**
 * The `remote` executor: sends the action parameters as a JSON body to an HTTPS endpoint
 * through the platform's SSRF-guarded client; the endpoint's JSON answer is the output.
 */
import { defineExecutor, type ExecutorContext, type ExecutorResult } from '../../core/plugin-api/index.ts';
import { failureOf } from '../_lib/failure-of.ts';
import { hostOf } from '../_lib/http-result.ts';
import { buildRemoteRequest, REMOTE_METHODS, remoteResult, toHttpRequest } from './remote-request.ts';

async function run(ctx: ExecutorContext): Promise<ExecutorResult> {
  try {
    const req = buildRemoteRequest(ctx);
    if (ctx.dryRun) return { status: 'completed', output: { dry_run: true }, plan: { executor: 'remote', request: { ...req } } };
    const res = await ctx.http.request(toHttpRequest(req, ctx));
    ctx.log('INFO', `${req.method} ${hostOf(req.url)}: HTTP ${res.statusCode}`);
    return remoteResult(res, req.url);
  } catch (err) {
    return failureOf(err, ctx);
  }
}

export default defineExecutor({
  name: 'remote',
  version: '1.0.0',
  apiVersion: '^1.3.0',
  description: 'Sends the action parameters as a JSON body to an HTTPS endpoint; its JSON answer is the output.',
  capabilities: ['net:outbound', 'secrets:read'],
  executorKind: 'remote',
  configSchema: {
    target: { type: 'string', required: true, description: 'The endpoint (an https URL).' },
    method: { type: 'string', enum: REMOTE_METHODS, default: 'POST' },
    input_mapping: { type: 'object', description: '{fields: {<sent name>: "<param>" | {param} | {value}}, include_unmapped?}; absent: every parameter under its own name.' },
  },
  run,
});
