import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentHandle } from '../../core/agents/agent-handle.ts';
import type { AgentCommand, ExecutorResult } from '../../core/plugin-api/index.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { eventually } from '../_helpers/harness/eventually.ts';
import { freePort, ROOT, SOURCE_NODE_ARGS } from '../_helpers/harness/spawn-service.ts';
import { exitOf } from '../_helpers/harness/child-exit.ts';

const CANARY = 'CANARY-AGENT-PARAM-9f3e';
let t0: TestApp;
let base: string;
let dir: string;
let scripts: string;
const strays: number[] = [];
const children: ChildProcess[] = [];
let seq = 0;

test.before(async () => {
  t0 = await createTestApp({ executors: { agent: { leaseMs: 1000, pollIntervalMs: 20, timeoutGraceMs: 300 } } });
  await t0.app.start();
  base = t0.server.info.uri;
  dir = mkdtempSync(join(tmpdir(), 'rampart-agent-test-'));
  scripts = join(dir, 'scripts');
  const node = `#!${process.execPath}\n`;
  const read = `const p = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n`;
  const files: Record<string, string> = {
    report: `${read}process.stderr.write('working on ' + p.ip + '\\n'); process.stdout.write(JSON.stringify({ status: 'success', data: { echo: p.ip, sandbox: process.env.RAMPART_SANDBOX === '1' } }));`,
    'marker-then-sleep': `${read}require('fs').appendFileSync(p.marker, 'ran ' + process.pid + '\\n'); setTimeout(() => {}, 60000);`,
    sleeper: `setTimeout(() => {}, 60000);`,
  };
  mkdirSync(scripts);
  for (const [name, body] of Object.entries(files)) {
    writeFileSync(join(scripts, name), node + body);
    chmodSync(join(scripts, name), 0o755);
  }
});

test.after.always(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await t0?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function startAgent(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'agent/main.ts', '--url', base, '--scripts-dir', scripts, '--wait-seconds', '1', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = exitOf(child);
  const waitFor = (re: RegExp) => eventually(async () => re.test(out), 20_000);
  return { child, output: () => out, waitFor, exited };
}

async function register(tenantId: string, name: string) {
  return t0.ctx.services.agents.register(tenantId, { name, labels: ['site-a'] });
}

function dispatch(tenantId: string, command: AgentCommand, params: Record<string, unknown>, timeoutMs = 10_000) {
  const lines: string[] = [];
  seq += 1;
  const handle = createAgentHandle(t0.ctx.services.agents, { tenantId, executionId: `exe_AGENTE2E${seq}${Date.now()}`, attempt: 1, sandbox: false, timeoutMs, signal: new AbortController().signal, log: (l, m) => lines.push(`${l} ${m}`) });
  const result: Promise<ExecutorResult> = handle.run({ target: 'site-a', command, params });
  return { result, lines };
}

test.serial('a real agent runs an executable and an isolate script, streams logs back, and keeps its token out of argv and logs', async (t) => {
  const { tenantId } = await t0.tenant();
  const { token } = await register(tenantId, 'e2e-1');
  const agent = startAgent([], { RAMPART_AGENT_TOKEN: token });
  await agent.waitFor(/"agent started"/);
  const cmdline = readFileSync(`/proc/${agent.child.pid}/cmdline`, 'latin1');
  t.false(cmdline.includes(token.slice(5)), 'the token is not in the process arguments');
  const run = dispatch(tenantId, { kind: 'local', script: 'report' }, { ip: '192.0.2.44', api_key: CANARY });
  t.deepEqual(await run.result, { status: 'completed', output: { status: 'success', data: { echo: '192.0.2.44', sandbox: false } } });
  await eventually(async () => run.lines.includes('INFO working on 192.0.2.44') || run.lines.some((l) => l.endsWith('working on 192.0.2.44')));
  const script = dispatch(tenantId, { kind: 'script', source: 'log("INFO", "in the isolate " + params.n); return { doubled: params.n * 2, has_http: typeof http === "function" && await http({url: "https://example.com"}).then(() => true, () => false) };' }, { n: 21 });
  t.deepEqual(await script.result, { status: 'completed', output: { result: { doubled: 42, has_http: false } } });
  t.true(script.lines.includes('INFO in the isolate 21'));
  agent.child.kill('SIGTERM');
  t.is(await agent.exited, 0);
  const out = agent.output();
  t.regex(out, /"job finished"/);
  t.false(out.includes(token.slice(5)), 'the token is never logged');
  t.false(out.includes(CANARY), 'parameters are never logged');
  const agentRow = await t0.ctx.services.agents.list(tenantId, { page: 1, perPage: 10 });
  t.truthy(agentRow.rows[0]?.lastSeenAt);
});

test.serial('an agent SIGKILLed after starting a job: the job is not run again and fails at its timeout (agent_lost)', async (t) => {
  const { tenantId } = await t0.tenant();
  const { token } = await register(tenantId, 'e2e-2');
  const first = startAgent([], { RAMPART_AGENT_TOKEN: token });
  await first.waitFor(/"agent started"/);
  const marker = join(dir, `marker-${Date.now()}`);
  const run = dispatch(tenantId, { kind: 'local', script: 'marker-then-sleep' }, { marker }, 4000);
  await eventually(async () => existsSync(marker));
  strays.push(Number(readFileSync(marker, 'utf8').split(' ')[1]));
  first.child.kill('SIGKILL');
  await first.exited;
  const second = startAgent([], { RAMPART_AGENT_TOKEN: token });
  await second.waitFor(/"agent started"/);
  const result = await run.result;
  t.is(result.status, 'timed_out');
  t.is(result.error?.code, 'agent_lost');
  t.deepEqual(readFileSync(marker, 'utf8').trim().split('\n').length, 1, 'the script ran exactly once');
  t.false(second.output().includes('"job started"'), 'the second agent never started it');
  second.child.kill('SIGTERM');
  t.is(await second.exited, 0);
});

test.serial('--token works but is wiped from the process arguments with a warning; SIGTERM reports a running job agent_stopped', async (t) => {
  const { tenantId } = await t0.tenant();
  const { token } = await register(tenantId, 'e2e-3');
  const agent = startAgent(['--token', token, '--drain-seconds', '0'], {});
  await agent.waitFor(/"agent started"/);
  t.false(readFileSync(`/proc/${agent.child.pid}/cmdline`, 'latin1').includes(token.slice(5)));
  t.regex(agent.output(), /RAMPART_AGENT_TOKEN or --token-file/);
  const run = dispatch(tenantId, { kind: 'local', script: 'sleeper' }, {});
  await agent.waitFor(/"job started"/);
  agent.child.kill('SIGTERM');
  t.like(await run.result, { status: 'failed', error: { code: 'agent_stopped' } });
  t.is(await agent.exited, 0);
  t.false(agent.output().includes(token.slice(5)));
});

test.serial('an unreachable Rampart is retried with backoff; a refused token stops the agent', async (t) => {
  const port = await freePort();
  const away = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'agent/main.ts', '--url', `http://127.0.0.1:${port}`], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', RAMPART_AGENT_TOKEN: 'rmpa_whatever' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(away);
  let out = '';
  away.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => away.once('exit', resolve));
  await eventually(async () => /Rampart is unreachable; retrying/.test(out), 20_000);
  away.kill('SIGTERM');
  t.is(await exited, 0);
  const refused = startAgent([], { RAMPART_AGENT_TOKEN: 'rmpa_not-a-real-token' });
  t.is(await refused.exited, 3);
  t.regex(refused.output(), /token was refused/);
  const missing = startAgent([], {});
  t.is(await missing.exited, 2);
  t.regex(missing.output(), /no agent token/);
});
