import { readFileSync } from 'node:fs';
import test from 'ava';
import { createTestDatabase } from '../_helpers/harness/test-db.ts';
import { createTestApp, type TestApp } from '../_helpers/harness/test-app.ts';
import { eventually } from '../_helpers/harness/eventually.ts';
import { runProcess } from '../_helpers/harness/processes.ts';
import { ROOT } from '../_helpers/harness/spawn-service.ts';
import { rampart, rampartProcess } from './_cli.ts';

let app: TestApp;
test.before(async () => {
  app = await createTestApp();
  await app.server.start();
});
test.after.always(async () => {
  await app?.close();
});

test('rampart migrate brings an empty database up to date and --status lists it; --direct refuses an unmigrated one', async (t) => {
  const db = await createTestDatabase();
  try {
    const env = { DATABASE_URL: db.url };
    const refused = await rampart(['admin', '--direct', 'tenants', 'list'], env);
    t.is(refused.code, 3);
    t.regex(refused.stderr, /run `rampart migrate`/);
    const applied = await rampart(['--json', 'migrate'], env);
    t.is(applied.code, 0, applied.stderr);
    t.true((JSON.parse(applied.stdout) as { applied: string[] }).applied.includes('004-findings'));
    const status = await rampart(['--json', 'migrate', '--status'], env);
    t.like(JSON.parse(status.stdout), { pending: [] });
    const again = await rampart(['migrate'], env);
    t.is(again.stdout, 'Database is up to date.\n');
  } finally {
    await db.drop();
  }
});

test('rampart agent runs the agent program: its token stays out of argv, SIGTERM reaches it and it exits cleanly', async (t) => {
  const { tenantId } = await app.tenant();
  const { token } = await app.ctx.services.agents.register(tenantId, { name: 'cli-agent', labels: ['site-a'] });
  const agent = rampartProcess(['agent', '--url', app.server.info.uri, '--wait-seconds', '1'], { RAMPART_AGENT_TOKEN: token });
  try {
    await eventually(async () => /"agent started"/.test(agent.output()) || agent.child.exitCode !== null, 120_000);
    t.regex(agent.output(), /"agent started"/);
    await eventually(async () => Boolean((await app.ctx.services.agents.list(tenantId, { page: 1, perPage: 5 })).rows[0]?.lastSeenAt), 30_000);
    t.false(readFileSync(`/proc/${agent.child.pid}/cmdline`, 'latin1').includes(token.slice(5)));
    agent.child.kill('SIGTERM');
    t.is(await agent.exited, 0, agent.output());
  } finally {
    if (agent.child.exitCode === null) agent.child.kill('SIGKILL');
  }
});

test('--help on every command, `npx rampart` from the checkout, and usage errors exit 2', async (t) => {
  const npx = await runProcess('npx', ['--no-install', 'rampart', '--help'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } });
  t.is(npx.code, 0, npx.stderr);
  for (const command of ['admin', 'migrate', 'import', 'export', 'agent']) t.regex(npx.stdout, new RegExp(`^  ${command}\\b`, 'm'));
  for (const args of [['admin', 'tokens', 'create', '--help'], ['import', '--help'], ['export', 'findings', '--help'], ['agent', '--help']]) {
    const res = await rampart(args);
    t.is(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    t.regex(res.stdout, /usage|Usage/, args.join(' '));
  }
  const unknown = await rampart(['frobnicate']);
  t.is(unknown.code, 2);
  t.regex(unknown.stderr, /unknown command 'frobnicate'/);
});
