import test from 'ava';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mockExecutorContext } from '../../../core/author-kit/index.ts';
import { validateOptions } from '../../../core/plugins/options-validator.ts';
import local from '../../../executors/local/index.ts';
import { localSettings } from '../../../executors/local/local-settings.ts';
import { scriptsDir, type ScriptsDir } from './scripts-dir.ts';

let scripts: ScriptsDir;
test.before(async () => {
  scripts = await scriptsDir();
  await scripts.node('block-ip.js', `
    process.stderr.write('blocking ' + input.ip + '\\n');
    process.stdout.write(JSON.stringify({ status: 'success', data: { blocked: input.ip, keyLength: input.api_key.length, env: process.env } }));`);
});
test.after.always(() => scripts.remove());

const asset = { id: 'ast_1', type: 'ip' as const, value: '10.0.0.9', name: 'edge' };

test('the manifest: a local executor needing only exec:process, with its settings declared and defaulted', (t) => {
  t.is(local.kind, 'executor');
  t.is(local.name, 'local');
  t.is(local.executorKind, 'local');
  t.is(local.apiVersion, '^1.3.0');
  t.deepEqual(local.capabilities, ['exec:process']);
  t.deepEqual(validateOptions(local.options, {}), { scriptsDir: './executors-scripts', maxOutputBytes: 1_048_576, maxLogLines: 1000, killGraceMs: 1000 });
  t.throws(() => validateOptions(local.options, { maxOutputBytes: 'lots' }));
  t.is(localSettings({ settings: {} }).scriptsDir, resolve('executors-scripts'));
});

test('a run: secrets travel on stdin only, context arrives as environment variables, stderr becomes log lines', async (t) => {
  const ctx = mockExecutorContext({
    settings: { scriptsDir: scripts.dir },
    config: { target: 'block-ip.js' },
    params: { ip: '10.0.0.9', api_key: 'sekret-canary-777' },
    secretParams: ['api_key'],
    executionId: 'exe_42',
    attempt: 3,
    asset,
    target: 'ast_1',
  });
  const result = await local.run(ctx);
  t.is(result.status, 'completed', JSON.stringify(result.error));
  const data = (result.output as { data: { blocked: string; keyLength: number; env: Record<string, string> } }).data;
  t.is(data.blocked, '10.0.0.9');
  t.is(data.keyLength, 'sekret-canary-777'.length);
  t.like(data.env, { RAMPART_EXECUTION_ID: 'exe_42', RAMPART_ATTEMPT: '3', RAMPART_ACTION_TYPE: 'remediation', RAMPART_ASSET_ID: 'ast_1', RAMPART_ASSET_TYPE: 'ip', RAMPART_ASSET_VALUE: '10.0.0.9' });
  t.false(JSON.stringify(data.env).includes('sekret-canary-777'), 'no secret in the environment');
  t.false('RAMPART_SANDBOX' in data.env);
  t.deepEqual(ctx.logs, [{ level: 'INFO', message: 'blocking 10.0.0.9' }]);
  t.deepEqual(ctx.secretLeaks, []);
});

test('a dry run starts nothing and describes the command, environment and stdin', async (t) => {
  const marker = join(scripts.dir, 'dry-run-marker');
  await scripts.add('marker.sh', `#!/bin/bash\ntouch ${marker}\necho '{"status":"success","data":null}'\n`);
  const ctx = mockExecutorContext({
    settings: { scriptsDir: scripts.dir },
    config: { target: 'marker.sh' },
    params: { ip: '10.0.0.9', api_key: 'k' },
    dryRun: true,
    sandboxMode: true,
  });
  const result = await local.run(ctx);
  t.is(result.status, 'completed');
  t.false(existsSync(marker), 'the executable did not run');
  t.like(result.plan, {
    executor: 'local',
    command: join(scripts.dir, 'marker.sh'),
    argv: [],
    cwd: '(fresh temp dir)',
    stdin: '{"ip":"10.0.0.9","api_key":"k"}',
  });
  t.like((result.plan as { env: Record<string, string> }).env, { RAMPART_SANDBOX: '1', RAMPART_EXECUTION_ID: 'exe_mock', PATH: '/usr/local/bin:/usr/bin:/bin' });
  t.deepEqual(ctx.logs, []);
  const missing = await local.run(mockExecutorContext({ settings: { scriptsDir: scripts.dir }, config: { target: 'nope.sh' }, dryRun: true }));
  t.is(missing.status, 'failed');
  t.is(missing.error?.code, 'script_not_found');
  const escape = await local.run(mockExecutorContext({ settings: { scriptsDir: scripts.dir }, config: { target: '../etc/passwd' }, dryRun: true }));
  t.is(escape.error?.code, 'invalid_target');
});

test('the context timeout and signal apply', async (t) => {
  await scripts.add('forever.sh', '#!/bin/bash\nsleep 1000\n');
  const timedOut = await local.run(mockExecutorContext({ settings: { scriptsDir: scripts.dir, killGraceMs: 100 }, config: { target: 'forever.sh' }, timeoutMs: 200 }));
  t.is(timedOut.status, 'timed_out');
  const controller = new AbortController();
  const pending = local.run(mockExecutorContext({ settings: { scriptsDir: scripts.dir }, config: { target: 'forever.sh' }, signal: controller.signal }));
  setTimeout(() => controller.abort(new Error('engine shutdown')), 50);
  const cancelled = await pending;
  t.is(cancelled.status, 'failed');
  t.is(cancelled.error?.code, 'cancelled');
});

test('sandbox mode sets RAMPART_SANDBOX=1', async (t) => {
  await scripts.add('env.sh', '#!/bin/bash\necho "{\\"status\\":\\"success\\",\\"data\\":\\"$RAMPART_SANDBOX\\"}"\n');
  const result = await local.run(mockExecutorContext({ settings: { scriptsDir: scripts.dir }, config: { target: 'env.sh' }, sandboxMode: true }));
  t.deepEqual(result.output, { status: 'success', data: '1' });
});
