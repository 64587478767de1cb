import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MODULES = join(ROOT, 'node_modules');
const CYCLONEDX_NPM = join(MODULES, '@cyclonedx/cyclonedx-npm/bin/cyclonedx-npm-cli.js');

/** A package to install into the project: copied from Rampart's own node_modules (real packages, offline). */
export interface ProjectPackage {
  /** Where it lands under the project's node_modules (`debug`, `@hapi/boom`). */
  name: string;
  /** Where it comes from under Rampart's node_modules (`knex/node_modules/debug` for another version). */
  from?: string;
}

export interface SmallProject {
  dir: string;
  /** `npm sbom --sbom-format cyclonedx|spdx` (npm 11: CycloneDX 1.5, SPDX 2.3). */
  npmSbom(format: 'cyclonedx' | 'spdx'): Promise<string>;
  /** `cyclonedx-npm --spec-version <v>` (@cyclonedx/cyclonedx-npm, JSON). */
  cyclonedxNpm(specVersion: '1.4' | '1.5' | '1.6'): Promise<string>;
  remove(): Promise<void>;
}

const npmEnv = { ...process.env, npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

/**
 * Writes a small Node project whose dependencies are real packages copied from Rampart's
 * node_modules, then `npm install --offline` writes its lockfile from that tree, so the
 * real generators run on a project with a lockfile and node_modules, without the network.
 */
export async function writeProject(name: string, version: string, packages: ProjectPackage[], direct: string[]): Promise<SmallProject> {
  const dir = await mkdtemp(join(tmpdir(), 'rampart-sbom-'));
  const deps: Record<string, string> = {};
  for (const p of packages) {
    const target = join(dir, 'node_modules', p.name);
    await mkdir(dirname(target), { recursive: true });
    await cp(join(MODULES, p.from ?? p.name), target, { recursive: true, dereference: true });
    const manifest = JSON.parse(await readFile(join(target, 'package.json'), 'utf8')) as { version: string };
    if (direct.includes(p.name)) deps[p.name] = manifest.version;
  }
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version, license: 'MIT', private: true, dependencies: deps }, null, 2));
  await run('npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--package-lock-only'], { cwd: dir, env: npmEnv });
  return {
    dir,
    async npmSbom(format) {
      return (await run('npm', ['sbom', '--sbom-format', format, '--offline'], { cwd: dir, env: npmEnv, maxBuffer: 512 * 1024 * 1024 })).stdout;
    },
    async cyclonedxNpm(specVersion) {
      const out = join(dir, `bom-${specVersion}.json`);
      await run(process.execPath, [CYCLONEDX_NPM, '--spec-version', specVersion, '--output-format', 'JSON', '--output-file', out, '--package-lock-only'], { cwd: dir, env: npmEnv, maxBuffer: 64 * 1024 * 1024 });
      return readFile(out, 'utf8');
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** `npm sbom` over Rampart itself: the largest real SBOM at hand (a thousand-odd packages). */
export async function rampartSbom(format: 'cyclonedx' | 'spdx'): Promise<string> {
  return (await run('npm', ['sbom', '--sbom-format', format, '--offline'], { cwd: ROOT, env: npmEnv, maxBuffer: 512 * 1024 * 1024 })).stdout;
}
