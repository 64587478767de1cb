import test from 'ava';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { installFixtures, REPO_ROOT, THIRD_PARTY, type FixtureKind } from '../../fixtures/install-fixtures.ts';
import { parse5424 } from '../../_helpers/parsers/syslog-parser.ts';

const KINDS = Object.keys(THIRD_PARTY) as FixtureKind[];
const fileOf = (dir: string, kind: FixtureKind, file: string) => join(dir, 'node_modules', THIRD_PARTY[kind].name, file);

/**
 * Type-checks files as a plugin author's project would: strict, NodeNext, JS checked
 * (the fixtures are published JS typed with JSDoc), `rampart/*` resolved through the
 * package's `exports`. Returns the compiler's messages, one per line.
 */
function typeCheck(files: string[]): string {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
    strict: true,
    noEmit: true,
    allowJs: true,
    checkJs: true,
    // The package ships its TypeScript sources, which import with `.ts` extensions.
    allowImportingTsExtensions: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    skipLibCheck: true,
  };
  const program = ts.createProgram(files, options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO_ROOT, getNewLine: () => '\n' });
}

test('the third-party fixtures compile against the published rampart/plugin-api and rampart/author-kit', (t) => {
  const dir = installFixtures();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const files = KINDS.flatMap((kind) => [fileOf(dir, kind, 'index.js'), fileOf(dir, kind, 'self-test.js')]);
  for (const file of files) t.regex(readFileSync(file, 'utf8'), /'rampart\/(plugin-api|author-kit)'/, `${file} imports the package by name`);
  const messages = typeCheck(files);
  t.is(messages, '', `the fixtures no longer compile against the package exports:\n${messages}`);
});

test('the compile check fails, with the compiler message, when a fixture breaks the contract', (t) => {
  const dir = installFixtures(['scanner']);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = fileOf(dir, 'scanner', 'index.js');
  writeFileSync(file, readFileSync(file, 'utf8').replace("maxSeverity: 'low'", "maxSeverity: 'catastrophic'"));
  const messages = typeCheck([file]);
  t.regex(messages, /index\.js\(\d+,\d+\): error TS2322: Type '"catastrophic"' is not assignable to type '"critical" \| "high" \| "medium" \| "low" \| "info"'/);
});

test('the scanner fixture tests itself with the author kit, by package name', async (t) => {
  const dir = installFixtures(['scanner']);
  const server = createServer((socket) => socket.end('SSH-2.0-Fixture\r\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { selfTest } = await import(pathToFileURL(fileOf(dir, 'scanner', 'self-test.js')).href);
  const attempt = await selfTest('127.0.0.1', (server.address() as { port: number }).port);
  t.is(attempt.status, 'completed');
  t.is(attempt.findings[0].evidence.response_indicator, 'SSH-2.0-Fixture');
});

test('the executor fixture tests itself with mockExecutorContext: recorded HTTP, served secret, real sandbox', async (t) => {
  const dir = installFixtures(['executor']);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { selfTest } = await import(pathToFileURL(fileOf(dir, 'executor', 'self-test.js')).href);
  const plain = await selfTest();
  t.deepEqual(plain.result, { status: 'completed', output: { status_code: 202, payload: { host: '203.0.113.9', reason: 'brute force' } } });
  t.is(plain.ctx.httpCalls.length, 1);
  t.like(plain.ctx.httpCalls[0], { url: 'https://hooks.example/notify', method: 'POST', body: '{"host":"203.0.113.9","reason":"brute force"}' });
  t.is(plain.ctx.httpCalls[0].headers.authorization, 'Bearer tok-s3cret');
  t.deepEqual(plain.ctx.secretReads, ['notify_token']);
  t.deepEqual(plain.ctx.secretLeaks, []);
  const transformed = await selfTest({ transform: 'console.log("blocking", input.host); return { ip: input.host, note: input.reason.toUpperCase() };' });
  t.deepEqual(transformed.result.output.payload, { ip: '203.0.113.9', note: 'BRUTE FORCE' });
  t.deepEqual(transformed.ctx.logs[0], { level: 'DEBUG', message: 'transform: blocking 203.0.113.9' });
  const dry = await selfTest({ dryRun: true });
  t.is(dry.ctx.httpCalls.length, 0);
  t.deepEqual(dry.ctx.secretReads, []);
  t.is((await selfTest({ statusCode: 500 })).result.error.code, 'http_error');
});

test('the forwarder fixture tests itself with formatEvent: its message inside core\'s syslog envelope', async (t) => {
  const dir = installFixtures(['forwarder']);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { selfTest } = await import(pathToFileURL(fileOf(dir, 'forwarder', 'self-test.js')).href);
  const line = parse5424(selfTest());
  t.is(line.pri, 16 * 8 + 3, 'local0, severity from the high finding');
  t.is(line.hostname, 'collector-test');
  t.is(line.appName, 'rampart');
  t.is(line.msgId, 'fixture-json');
  t.deepEqual(line.sd, [{ id: 'fixture@32473', params: [['tenant', 'ten_sample']] }]);
  t.deepEqual(JSON.parse(line.msg!), { id: '1', kind: 'finding.new', summary: 'New high finding: Weak TLS ciphers', severity: 'high', asset: '192.0.2.7', from: '192.0.2.10' });
});
