import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlugins, PluginLoadError } from '../../../core/plugins/load-plugins.ts';
import { PluginRegistry, type LoadedPlugin } from '../../../core/plugins/plugin-registry.ts';
import { defineScanner, type ScannerPlugin } from '../../../core/plugin-api/index.ts';
import portScanner from '../../../scanners/port/index.ts';

function scanner(name: string, validateOptions?: ScannerPlugin['validateOptions']): LoadedPlugin {
  const plugin = defineScanner({
    name, version: '1.0.0', apiVersion: '^1.0.0', description: '', capabilities: [], scanTypes: ['port'], assetTypes: ['ip'],
    checks: [{ id: `${name}:c`, title: 't', category: 'c', maxSeverity: 'low', run: async () => {} }],
    ...(validateOptions ? { validateOptions } : {}),
  });
  return { plugin, source: 'builtin', moduleUrl: `file:///${name}.js`, options: {}, capabilities: [] };
}

test('every loaded scanner with validateOptions is asked; its problems name the option and the scanner', (t) => {
  const registry = new PluginRegistry([
    scanner('silent'),
    scanner('picky', (o) => (o.depth === 'abyss' ? [{ option: 'depth', message: 'depth "abyss" is unknown' }] : [])),
    { ...scanner('port'), plugin: portScanner },
  ]);
  t.deepEqual(registry.scanOptionProblems({}), []);
  t.deepEqual(registry.scanOptionProblems({ ports: '22,80,8000-8100', depth: 'deep' }), []);
  t.deepEqual(registry.scanOptionProblems({ ports: '70000-80000', depth: 'abyss' }), [
    { scanner: 'picky', option: 'depth', message: 'depth "abyss" is unknown' },
    { scanner: 'port', option: 'ports', message: 'invalid port range 70000-80000 (ports are 1-65535, a range goes from low to high)' },
  ]);
  for (const ports of ['0', '99999', '65535-1', '1-65536', '22,,80', 'top:x']) t.is(registry.scanOptionProblems({ ports }).length, 1, ports);
  for (const ports of ['top', 'all', 'top:20', '1-65535', '65535', ' 22 , 443 ']) t.deepEqual(registry.scanOptionProblems({ ports }), [], ports);
});

test('a validator that throws or answers nonsense refuses the options instead of failing the request', (t) => {
  const registry = new PluginRegistry([
    scanner('thrower', () => { throw new Error('kaput'); }),
    scanner('sloppy', () => [{ message: 'no option named' }] as never),
  ]);
  t.deepEqual(registry.scanOptionProblems({}), [
    { scanner: 'sloppy', option: '', message: 'no option named' },
    { scanner: 'thrower', option: '', message: 'the thrower scanner could not check the options: kaput' },
  ]);
});

test('validateOptions that is not a function stops start-up', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-plugins-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'odd.mjs'), `export default { kind: 'scanner', name: 'odd', version: '1.0.0', apiVersion: '^1.0.0', description: 'x', capabilities: [], scanTypes: ['port'], assetTypes: ['ip'], validateOptions: 'ports', checks: [{ id: 'odd:c', title: 't', category: 'c', maxSeverity: 'low', run: async () => {} }] };\n`);
  const err = await t.throwsAsync(loadPlugins({ builtin: [], baseDir: dir, external: [{ module: './odd.mjs', capabilities: [], options: {} }] } as never), { instanceOf: PluginLoadError });
  t.regex(err!.message, /validateOptions/);
});
