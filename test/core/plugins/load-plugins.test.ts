import test from 'ava';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlugins, PluginLoadError } from '../../../core/plugins/load-plugins.ts';
import { PLUGIN_API_VERSION } from '../../../core/plugin-api/index.ts';
import { createTestApp } from '../../_helpers/harness/test-app.ts';
import { installFixtures } from '../../fixtures/install-fixtures.ts';

const FIXTURE = fileURLToPath(new URL('../../fixtures/third-party-scanner', import.meta.url));

/** An admin's install folder outside the source tree, with the fixture as an npm package. */
function installFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-plugins-'));
  mkdirSync(join(dir, 'node_modules'));
  cpSync(FIXTURE, join(dir, 'node_modules', 'rampart-scanner-fixture'), { recursive: true });
  return dir;
}

function writePlugin(dir: string, file: string, manifest: Record<string, unknown>): void {
  const body = { kind: 'scanner', name: 'bad', version: '1.0.0', apiVersion: '^1.0.0', description: 'x', capabilities: [], scanTypes: ['port'], assetTypes: ['ip'], ...manifest };
  writeFileSync(join(dir, file), `export default { ...${JSON.stringify(body)}, checks: [{ id: '${body.name}:c', title: 't', category: 'c', maxSeverity: 'low', run: async () => {} }] };\n`);
}

const external = (dir: string, module: string, capabilities: string[] = ['net:outbound'], options: Record<string, unknown> = {}) => ({
  builtin: [] as string[],
  baseDir: dir,
  external: [{ module, capabilities, options }],
});

test('loads a third-party scanner package by name from the admin folder, with options and grants', async (t) => {
  const dir = installFixture();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const registry = await loadPlugins(external(dir, 'rampart-scanner-fixture', ['net:outbound'], { port: 2222, api_key: 's3cret' }));
  const entry = registry.get('fixture')!;
  t.is(entry.source, 'external');
  t.is(entry.plugin.kind, 'scanner');
  t.deepEqual(entry.options, { port: 2222, api_key: 's3cret' });
  t.regex(entry.moduleUrl, /node_modules\/rampart-scanner-fixture\/index\.js$/);
  t.is(registry.scanners().length, 1);
});

test('loads a plugin by path, relative to the admin folder', async (t) => {
  const dir = installFixture();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const registry = await loadPlugins(external(dir, './node_modules/rampart-scanner-fixture'));
  t.is(registry.get('fixture')?.plugin.version, '1.2.3');
  t.deepEqual(registry.get('fixture')?.options, { port: 22 }, 'defaults applied');
});

test('refuses bad plugins at start-up with an error naming them', async (t) => {
  const dir = installFixture();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cases: Array<[ReturnType<typeof external>, RegExp]> = [
    [external(dir, 'rampart-scanner-fixture', []), /rampart-scanner-fixture.*\(fixture\) requires capabilities not granted by the admin: net:outbound/],
    [external(dir, 'no-such-plugin'), /Cannot find plugin "no-such-plugin" \(plugins.external\[0\]\)/],
    [external(dir, 'rampart-scanner-fixture', ['net:outbound'], { port: 'ssh' }), /Invalid options for plugin "rampart-scanner-fixture".*port must be a number/],
    [external(dir, 'rampart-scanner-fixture', ['net:outbound'], { colour: 'red' }), /colour is not allowed/],
  ];
  writePlugin(dir, 'future.js', { name: 'future', apiVersion: '^2.0.0' });
  cases.push([external(dir, './future.js', []), new RegExp(`\\(future\\) needs plugin API \\^2\\.0\\.0; this Rampart provides ${PLUGIN_API_VERSION.replaceAll('.', '\\.')}\\.`)]);
  writePlugin(dir, 'nameless.js', { name: 'Bad Name!' });
  cases.push([external(dir, './nameless.js', []), /Invalid plugin "\.\/nameless\.js".*name/]);
  writePlugin(dir, 'kindless.js', { kind: 'teapot' });
  cases.push([external(dir, './kindless.js', []), /Invalid plugin "\.\/kindless\.js"/]);
  writeFileSync(join(dir, 'formatless.js'), `export default ${JSON.stringify({ kind: 'forwarder', name: 'formatless', version: '1.0.0', apiVersion: '^1.0.0', description: 'x', capabilities: [], format: 'x' })};\n`);
  cases.push([external(dir, './formatless.js', []), /Invalid plugin "\.\/formatless\.js".*formatMessage, render/]);
  writeFileSync(join(dir, 'broken.js'), 'export default {;\n');
  cases.push([external(dir, './broken.js', []), /Cannot load plugin "\.\/broken\.js"/]);
  for (const [config, message] of cases) {
    const err = await t.throwsAsync(loadPlugins(config), { instanceOf: PluginLoadError });
    t.regex(err!.message, message);
  }
  const twice = { builtin: [] as string[], baseDir: dir, external: [
    { module: 'rampart-scanner-fixture', capabilities: ['net:outbound'], options: {} },
    { module: './node_modules/rampart-scanner-fixture', capabilities: ['net:outbound'], options: {} },
  ] };
  await t.throwsAsync(loadPlugins(twice), { instanceOf: PluginLoadError, message: /Two plugins are named "fixture"/ });
  await t.throwsAsync(loadPlugins({ builtin: ['no-such-builtin'], baseDir: dir, external: [] }), { message: /unknown built-in plugins: no-such-builtin/ });
});

test('loads third-party executor and forwarder packages by name, found by executor kind and format', async (t) => {
  const dir = installFixtures(['executor', 'forwarder']);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const executor = { module: 'rampart-executor-fixture', capabilities: ['net:outbound', 'secrets:read', 'exec:sandbox'], options: {} };
  const forwarder = { module: 'rampart-forwarder-fixture', capabilities: [], options: {} };
  const registry = await loadPlugins({ builtin: [], baseDir: dir, external: [executor, forwarder] });
  t.is(registry.executorFor('fixture_notify')?.plugin.name, 'fixture-notify');
  t.deepEqual(registry.executorFor('fixture_notify')?.capabilities, ['net:outbound', 'secrets:read', 'exec:sandbox']);
  t.is(registry.forwarderFor('fixture_json')?.plugin.version, '2.0.1');
  t.deepEqual(registry.forwarderFor('fixture_json')?.options, { sd_id: 'fixture@32473' }, 'option defaults applied');
  const ungranted = { ...executor, capabilities: ['net:outbound', 'secrets:read'] };
  await t.throwsAsync(loadPlugins({ builtin: [], baseDir: dir, external: [ungranted] }), { instanceOf: PluginLoadError, message: /\(fixture-notify\) requires capabilities not granted by the admin: exec:sandbox/ });
});

test('two executors of one kind stop start-up; leaving the built-in out lets a third party take its kind', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-plugins-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const body = { kind: 'executor', name: 'my-remote', version: '1.0.0', apiVersion: '^1.3.0', description: 'x', capabilities: [], executorKind: 'remote' };
  writeFileSync(join(dir, 'my-remote.js'), `export default { ...${JSON.stringify(body)}, run: async () => ({ status: 'completed', output: {} }) };\n`);
  const mine = { module: './my-remote.js', capabilities: [], options: {} };
  await t.throwsAsync(loadPlugins({ builtin: ['remote'], baseDir: dir, external: [mine] }), { instanceOf: PluginLoadError, message: /"remote" and "my-remote" are both executors of kind "remote"/ });
  const registry = await loadPlugins({ builtin: ['local'], baseDir: dir, external: [mine] });
  t.is(registry.executorFor('remote')?.plugin.name, 'my-remote');
});

test('GET /api/plugins lists loaded plugins with secret options redacted', async (t) => {
  const dir = installFixture();
  const app = await createTestApp({ plugins: { builtin: 'all', baseDir: dir, external: [{ module: 'rampart-scanner-fixture', capabilities: ['net:outbound'], options: { api_key: 'do-not-show' } }] } });
  t.teardown(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { token } = await app.tenant({ scopes: ['assets:read'] });
  const res = await app.request('GET', '/api/plugins?kind=scanner', { token });
  t.is(res.statusCode, 200);
  const fixture = res.body.data.find((p: { name: string }) => p.name === 'fixture');
  t.like(fixture, { kind: 'scanner', version: '1.2.3', source: 'external', api_version: '^1.0.0', scan_types: ['port'], asset_types: ['ip', 'domain'] });
  t.deepEqual(fixture.checks, [{ id: 'fixture:tcp-banner', title: 'Service banner disclosure', category: 'exposure', max_severity: 'low' }]);
  t.is(fixture.options.api_key, '[redacted]');
  t.false(res.raw.includes('do-not-show'));
  t.is(res.body.meta.total, res.body.data.length);
  t.is((await app.request('GET', '/api/plugins', { token: null })).statusCode, 401);
  t.is((await app.request('GET', '/api/plugins?kind=teapot', { token })).statusCode, 400);
});

test('built-in plugins take admin options from plugins.builtinOptions, validated like any plugin', async (t) => {
  const registry = await loadPlugins({ builtin: ['ssl'], builtinOptions: { ssl: { handshake_timeout_ms: 1234 } }, external: [], baseDir: '.' });
  const ssl = registry.scanners().find((s) => s.plugin.name === 'ssl')!;
  t.is(ssl.options.handshake_timeout_ms, 1234);
  t.is(ssl.options.expiry_warning_days, 30, 'defaults still apply to the rest');
  const bad = await t.throwsAsync(loadPlugins({ builtin: ['ssl'], builtinOptions: { ssl: { handshake_timeout_ms: 'soon' } }, external: [], baseDir: '.' }), { instanceOf: PluginLoadError });
  t.regex(bad!.message, /ssl/);
  const unknown = await t.throwsAsync(loadPlugins({ builtin: ['ssl'], builtinOptions: { dns: {} }, external: [], baseDir: '.' }), { instanceOf: PluginLoadError });
  t.regex(unknown!.message, /builtinOptions.*dns/);
});
