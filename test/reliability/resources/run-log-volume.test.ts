// Issue 25, item 4: a run that logs the documented maximum (2,000 lines per attempt) in one
// go keeps every line and its result, through a script, a local executable and an agent.
// On SQLite one multi-row INSERT of more than 500 rows was refused (compound SELECT limit):
// the settle failed and the run ended worker_lost with its outcome lost.
import test from 'ava';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../_helpers/harness/eventually.ts';
import { ROOT, SOURCE_NODE_ARGS } from '../../_helpers/harness/spawn-service.ts';
import { createTestApp, type TestApp } from '../../_helpers/harness/test-app.ts';

const LINES = 2000;
/** Lines one agent job forwards at most (the agent's own bound), then one WARN. */
const AGENT_LINES = 1000;

const dir = mkdtempSync(join(tmpdir(), 'rampart-log-volume-'));
const scripts = join(dir, 'scripts');
// Writes every line to stderr at once, then its result.
const chatty = `#!${process.execPath}
let out = '';
for (let i = 0; i < ${LINES}; i++) out += 'line ' + i + '\\n';
process.stderr.write(out);
process.stdout.write(JSON.stringify({ status: 'success', data: { wrote: ${LINES} } }));
`;

let app: TestApp;
let token: string;
let agent: ChildProcess | undefined;

test.before(async () => {
  mkdirSync(scripts, { recursive: true });
  writeFileSync(join(scripts, 'chatty'), chatty);
  chmodSync(join(scripts, 'chatty'), 0o755);
  app = await createTestApp({
    executors: { pollIntervalMs: 20, executeWaitMs: 0, local: { scriptsDir: scripts, maxLogLines: LINES }, agent: { pollIntervalMs: 20, maxLogLines: LINES } },
    plugins: { builtinOptions: { script: { maxLogLines: LINES } } },
  });
  await app.app.start();
  ({ token } = await app.tenant());
});

test.after.always(async () => {
  agent?.kill('SIGKILL');
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, url: string, payload?: unknown): Promise<any> {
  const res = await app.request(method, url, { token, payload });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.raw.slice(0, 500)}`);
  return res.body.data;
}

async function runOf(action: Record<string, unknown>): Promise<any> {
  const { id } = await call('POST', '/api/actions', action);
  const { execution_id } = await call('POST', `/api/actions/${id}/execute`, { parameters: {} });
  return eventually(async () => {
    const run = await call('GET', `/api/actions/executions/${execution_id}`);
    return ['completed', 'failed', 'timed_out', 'cancelled'].includes(run.status) ? run : undefined;
  }, 60_000, 50);
}

const numbered = (run: any) => run.logs.filter((l: { message: string }) => /^line \d+$/.test(l.message)).length;
/** The attempt kept its 2,000 lines: the engine's own lines (attempt started, …) count against them, then one WARN says how many were dropped. */
function keptTheMaximum(t: import('ava').ExecutionContext, run: any): void {
  t.true(run.logs.length >= LINES, `${run.logs.length} log lines kept`);
  t.true(numbered(run) >= LINES - 2, `${numbered(run)} of the executor's lines kept`);
}

test.serial(`a script logging ${LINES} lines keeps its result and every line`, async (t) => {
  const run = await runOf({ name: 'chatty-script', type: 'script', executor: 'local', config: { source: `for (let i = 0; i < ${LINES}; i++) log('INFO', 'line ' + i); return { wrote: ${LINES} };` } });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.deepEqual(run.output, { result: { wrote: LINES } });
  keptTheMaximum(t, run);
});

test.serial(`a local executable writing ${LINES} stderr lines at once keeps its result and every line`, async (t) => {
  const run = await runOf({ name: 'chatty-local', type: 'remediation', executor: 'local', config: { target: 'chatty' } });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  keptTheMaximum(t, run);
});

test.serial(`an agent's job posting ${AGENT_LINES} lines keeps its result and every line`, async (t) => {
  const registered = await call('POST', '/api/agents', { name: 'site-a-agent', labels: ['site-a'] });
  agent = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'agent/main.ts', '--url', app.server.info.uri, '--scripts-dir', scripts, '--wait-seconds', '1'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RAMPART_AGENT_TOKEN: registered.token },
    stdio: 'ignore',
  });
  const run = await runOf({ name: 'chatty-agent', type: 'remediation', executor: 'agent', config: { target: 'site-a', script: 'chatty' } });
  t.is(run.status, 'completed', JSON.stringify(run.error));
  t.is(numbered(run), AGENT_LINES);
});
