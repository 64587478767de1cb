import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProduction, type ProductionServer } from '../_helpers/console/production-start.ts';
import { ROOT } from '../_helpers/harness/spawn-service.ts';

// Issue 24, defect 4: the README's "First calls under `npm start`" showed answers only the
// trial gives, and its playbook named actions it never created. Its blocks are run here as
// written, in bash with `set -euo pipefail`, against `npm start` with the defaults
// (NODE_ENV=production), and what they print is what the README says they answer.

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function block(name: string): string {
  const found = new RegExp(`<!-- ${name}:begin -->\\s*\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(README)?.[1];
  if (!found) throw new Error(`README.md has no ${name} block`);
  return found;
}

let server: ProductionServer;
test.before(async () => {
  server = await startProduction();
});
test.after.always(async () => {
  await server?.stop();
});

test('"First calls" and "Respond" run as written under npm start and answer what the README shows', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-readme-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const firstCalls = block('first-calls');
  const respond = block('respond');
  writeFileSync(join(dir, 'calls.sh'), `set -euo pipefail\n${firstCalls}\n${respond}`);
  const run = spawnSync('bash', ['calls.sh'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TOKEN: server.adminToken, RAMPART: server.url },
  });
  t.is(run.status, 0, run.stdout + run.stderr);
  const lines = run.stdout.split('\n');
  // Each answer the README shows as a comment, against what the command before it printed.
  t.regex(lines[0]!, /^\{"data":\{"status":"ok","version":"0\.1\.0","uptime_seconds":\d+,.*"database":\{"status":"ok","engine":"(sqlite|mysql)"/);
  t.true(firstCalls.includes('# 400 {"status":"error","error":{"code":"asset_not_verified","message":"The asset\'s ownership is not verified; …"}}'));
  t.regex(lines[1]!, /^\{"status":"error","error":\{"code":"asset_not_verified","message":"The asset's ownership is not verified; /);
  const verify = JSON.parse(lines[2]!);
  t.is(verify.data.verification_method, 'dns_txt');
  t.is(typeof verify.data.verification_token, 'string');
  t.is(typeof verify.data.instructions, 'string');
  t.is(lines[3], 'completed', 'the sandbox run of block-ip');
  t.is(lines[4], '2', 'the contain playbook, with both actions it names created above');
});
