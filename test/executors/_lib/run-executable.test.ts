import test from 'ava';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogLevel } from '../../../core/plugin-api/index.ts';
import { networkIsolation } from '../../../executors/_lib/network-isolation.ts';
import { runExecutable, type RunExecutableOptions } from '../../../executors/_lib/run-executable.ts';
import { alive, eventually, scriptsDir, type ScriptsDir } from '../local/scripts-dir.ts';

let scripts: ScriptsDir;
let outside: string;
const pidFile = join(tmpdir(), `rampart-pids-${process.pid}`);

test.before(async () => {
  scripts = await scriptsDir();
  outside = join(tmpdir(), `rampart-outside-${process.pid}`);
  await writeFile(outside, '#!/bin/sh\necho \'{"status":"success","data":"outside"}\'\n', { mode: 0o755 });
});
test.after.always(async () => {
  await scripts.remove();
  await rm(outside, { force: true });
  await rm(pidFile, { force: true });
});

function run(target: string, over: Partial<RunExecutableOptions> = {}): Promise<{ result: Awaited<ReturnType<typeof runExecutable>>; logs: Array<{ level: LogLevel; message: string }> }> {
  const logs: Array<{ level: LogLevel; message: string }> = [];
  return runExecutable({
    scriptsDir: scripts.dir,
    target,
    params: {},
    sandbox: false,
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    maxOutputBytes: 1 << 20,
    onLog: (level, message) => logs.push({ level, message }),
    ...over,
  }).then((result) => ({ result, logs }));
}

test('the parameters arrive as one JSON document on stdin; argv, environment and working directory are minimal', async (t) => {
  const name = await scripts.node('echo-context.js', `
    const fs = require('node:fs');
    process.stdout.write(JSON.stringify({ status: 'success', data: { input, argv: process.argv.slice(1), env: process.env, cwd: process.cwd(), cwdFiles: fs.readdirSync('.') } }));`);
  const params = { ip: '10.0.0.1', api_key: 'canary-key-123', nested: { list: [1, 2] } };
  const { result } = await run(name, { params, env: { RAMPART_EXECUTION_ID: 'exe_1', RAMPART_ATTEMPT: '2' } });
  t.is(result.status, 'completed');
  const data = result.output.data as { input: unknown; argv: string[]; env: Record<string, string>; cwd: string; cwdFiles: string[] };
  t.deepEqual(data.input, params);
  t.deepEqual(data.argv, [join(scripts.dir, name)], 'argv is the program alone: no parameters, no secrets');
  t.deepEqual(Object.keys(data.env).sort(), ['HOME', 'LANG', 'PATH', 'RAMPART_ATTEMPT', 'RAMPART_EXECUTION_ID']);
  t.is(data.env.PATH, '/usr/local/bin:/usr/bin:/bin');
  t.is(data.env.HOME, data.cwd);
  t.not(data.cwd, scripts.dir);
  t.deepEqual(data.cwdFiles, [], 'a fresh, empty working directory');
  t.false(existsSync(data.cwd), 'the working directory is removed afterwards');
  t.is(result.output.status, 'success');
});

test('a status other than error is kept in the output', async (t) => {
  const name = await scripts.add('already.sh', '#!/bin/bash\necho \'{"status":"already_blocked","data":{"rule":7}}\'\n');
  const { result } = await run(name);
  t.deepEqual(result, { status: 'completed', output: { status: 'already_blocked', data: { rule: 7 } } });
});

test('a reported error fails the run with its code and message', async (t) => {
  const name = await scripts.add('report-error.sh', '#!/bin/bash\necho \'{"status":"error","error":{"code":"firewall_unreachable","message":"no route to firewall"}}\'\nexit 2\n');
  const { result } = await run(name);
  t.is(result.status, 'failed');
  t.deepEqual(result.error, { code: 'firewall_unreachable', message: 'no route to firewall' });
});

test('stdout that is not the JSON document fails with invalid_output and a short tail of it', async (t) => {
  const name = await scripts.add('prose.sh', `#!/bin/bash\nprintf 'x%.0s' {1..500}\necho ' done, all good'\n`);
  const { result } = await run(name);
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'invalid_output');
  t.true(result.error!.message.endsWith('done, all good'));
  t.true(result.error!.message.length < 320, 'the tail is bounded');
  const silent = await scripts.add('silent.sh', '#!/bin/bash\nexit 0\n');
  t.is((await run(silent)).result.error?.code, 'invalid_output');
});

test('a non-zero exit without a reported error fails with exit_code, even if stdout claims success', async (t) => {
  const name = await scripts.add('exit3.sh', '#!/bin/bash\necho \'{"status":"success","data":null}\'\nexit 3\n');
  const { result } = await run(name);
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'exit_code');
  t.regex(result.error!.message, /code 3/);
  t.deepEqual(result.output, { exit_code: 3 });
});

test('each stderr line is a log line; a level prefix sets its level; the count is bounded', async (t) => {
  const name = await scripts.add('chatty.sh', `#!/bin/bash
echo 'starting' >&2
echo 'WARN: disk almost full' >&2
echo 'ERROR: partial failure' >&2
echo 'DEBUG: detail' >&2
for i in $(seq 1 50); do echo "line $i" >&2; done
echo '{"status":"success","data":1}'
`);
  const { result, logs } = await run(name, { maxLogLines: 6 });
  t.is(result.status, 'completed');
  t.deepEqual(logs.slice(0, 6), [
    { level: 'INFO', message: 'starting' },
    { level: 'WARN', message: 'disk almost full' },
    { level: 'ERROR', message: 'partial failure' },
    { level: 'DEBUG', message: 'detail' },
    { level: 'INFO', message: 'line 1' },
    { level: 'INFO', message: 'line 2' },
  ]);
  t.is(logs.length, 7);
  t.is(logs[6]!.level, 'WARN');
  t.regex(logs[6]!.message, /more than 6 stderr lines/);
});

test('stdout beyond the limit is cut, flagged, and the process is stopped', async (t) => {
  const name = await scripts.add('flood.sh', '#!/bin/bash\nwhile true; do echo "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; done\n');
  const { result } = await run(name, { maxOutputBytes: 4096 });
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'output_too_large');
  t.is(result.output.truncated, true);
  t.is(Buffer.byteLength(result.output.stdout as string), 4096);
});

test('on timeout the whole process group is killed, grandchildren included, and the run is timed_out', async (t) => {
  const name = await scripts.add('hang.sh', `#!/bin/bash
trap '' TERM
sleep 1000 &
echo "$$ $!" > ${pidFile}
wait
`);
  const { result } = await run(name, { timeoutMs: 300, killGraceMs: 200 });
  t.is(result.status, 'timed_out');
  t.is(result.error?.code, 'timeout');
  const [leader, grandchild] = (await readFile(pidFile, 'utf8')).trim().split(' ').map(Number);
  t.true(await eventually(() => !alive(leader!) && !alive(grandchild!)), 'leader and grandchild are gone');
});

test('aborting the signal kills the process group and the run is failed with cancelled', async (t) => {
  const name = await scripts.add('sleepy.sh', '#!/bin/bash\nsleep 1000\n');
  const controller = new AbortController();
  const pending = run(name, { signal: controller.signal });
  setTimeout(() => controller.abort('cancelled by user'), 100);
  const { result } = await pending;
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'cancelled');
  const pre = new AbortController();
  pre.abort();
  t.is((await run(name, { signal: pre.signal })).result.error?.code, 'cancelled');
});

test('a cancel that lands after the first check but before the process starts still stops it at once', async (t) => {
  const name = await scripts.add('sleepy-late.sh', '#!/bin/bash\nsleep 1000\n');
  // Not aborted when first asked, aborted by the time the process is supervised: the
  // abort event has already fired, so only a second look can see it.
  let reads = 0;
  const signal = { get aborted() { reads += 1; return reads > 1; }, reason: 'cancelled by user', addEventListener() {}, removeEventListener() {} } as unknown as AbortSignal;
  const { result } = await run(name, { signal, timeoutMs: 8000 });
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'cancelled');
});

test('targets that are not plain names of executables in the directory are refused before anything runs', async (t) => {
  await scripts.add('not-exec.sh', '#!/bin/bash\necho hi\n', 0o644);
  await scripts.add('.hidden', '#!/bin/bash\necho hi\n');
  await mkdir(join(scripts.dir, 'adir'), { recursive: true });
  await symlink(outside, join(scripts.dir, 'escape-link'));
  const code = async (target: string): Promise<string | undefined> => (await run(target)).result.error?.code;
  t.is(await code('../x'), 'invalid_target');
  t.is(await code('a/b'), 'invalid_target');
  t.is(await code('a\\b'), 'invalid_target');
  t.is(await code('.hidden'), 'invalid_target');
  t.is(await code('x\0y'), 'invalid_target');
  t.is(await code(''), 'invalid_target');
  t.is(await code('missing.sh'), 'script_not_found');
  t.is(await code('escape-link'), 'script_not_found', 'a symlink out of the directory is refused');
  t.is(await code('not-exec.sh'), 'script_not_executable');
  t.is(await code('adir'), 'script_not_executable');
  t.is((await run('x.sh', { scriptsDir: join(scripts.dir, 'nope') })).result.error?.code, 'script_not_found');
});

test('a file that cannot be executed (no shebang, bad interpreter) fails with spawn_failed', async (t) => {
  const name = await scripts.add('bad-interp.sh', '#!/nonexistent/interpreter\n');
  const { result } = await run(name);
  t.is(result.status, 'failed');
  t.is(result.error?.code, 'spawn_failed');
  const nul = await run(await scripts.add('fine.sh', '#!/bin/bash\necho \'{"status":"success"}\'\n'), { env: { BAD: 'a\0b' } });
  t.is(nul.result.error?.code, 'spawn_failed', 'an environment value holding NUL is refused, not thrown');
});

test('sandbox runs get RAMPART_SANDBOX=1 and, where unshare works, no network', async (t) => {
  const server: Server = createServer((s) => s.end('hello'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const name = await scripts.node('connect.js', `
      const net = require('node:net');
      const sock = net.connect(${port}, '127.0.0.1');
      const done = (reached, why) => { process.stdout.write(JSON.stringify({ status: 'success', data: { reached, why, sandbox: process.env.RAMPART_SANDBOX ?? null } })); process.exit(0); };
      sock.on('data', () => done(true, 'connected'));
      sock.on('error', (e) => done(false, e.code));`);
    const normal = await run(name);
    t.deepEqual(normal.result.output.data, { reached: true, why: 'connected', sandbox: null });
    const sandboxed = await run(name, { sandbox: true });
    const data = sandboxed.result.output.data as { reached: boolean; why: string; sandbox: string };
    t.is(data.sandbox, '1');
    if (await networkIsolation()) {
      t.false(data.reached, 'the loopback server is out of reach');
      t.true(['ENETUNREACH', 'ECONNREFUSED'].includes(data.why), `refused with ${data.why}`);
      t.deepEqual(sandboxed.logs, []);
    } else {
      t.log('unshare -rn does not work on this host: only the WARN line is checked');
      t.true(sandboxed.logs.some((l) => l.level === 'WARN' && /network isolation is unavailable/.test(l.message)));
    }
  } finally {
    server.close();
  }
});
