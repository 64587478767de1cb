import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError, EXIT } from '../exit-codes.ts';
import { note, print, type OutputOptions } from '../output.ts';
import type { AdminBackend, Page } from './admin-backend.ts';
import { findingsRecountCommand } from './findings-recount-command.ts';
import { findingsRededupCommand } from './findings-rededup-command.ts';

interface Globals {
  direct?: boolean;
  page: string;
  perPage: string;
}

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

/** A password from a file or standard input: never an argument (visible in `ps` and shell history). */
async function passwordFrom(options: { passwordFile?: string; passwordStdin?: boolean }): Promise<string> {
  if (options.passwordFile && options.passwordStdin) throw new CliError('Give the password once: --password-file or --password-stdin.', EXIT.usage);
  if (options.passwordFile) {
    try {
      return readFileSync(options.passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new CliError(`Cannot read ${options.passwordFile}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`, EXIT.usage);
    }
  }
  if (options.passwordStdin) {
    let text = '';
    for await (const chunk of process.stdin) text += String(chunk);
    return text.replace(/\r?\n$/, '');
  }
  throw new CliError('The new user\'s password comes from --password-file FILE or --password-stdin.', EXIT.usage);
}

/** `rampart admin tenants|users|tokens …`: through the API with an admin token, or `--direct` on the database. */
export function adminCommand(program: Command, output: () => OutputOptions, url: () => string | undefined): void {
  const admin = program
    .command('admin')
    .description('manage tenants, users and tokens (admin token via RAMPART_TOKEN, or --direct on the database)')
    .option('--direct', 'work on the configured database instead of the API (bootstrap, recovery)')
    .option('--url <url>', 'Rampart base URL (default: RAMPART_URL)')
    .option('--page <n>', 'page of a list', '1')
    .option('--per-page <n>', 'rows per page of a list (1-100)', '20');

  const page = (cmd: Command): Page => {
    const g = cmd.optsWithGlobals() as Globals;
    const p = { page: Number(g.page), perPage: Number(g.perPage) };
    if (!Number.isInteger(p.page) || p.page < 1 || !Number.isInteger(p.perPage) || p.perPage < 1 || p.perPage > 100) throw new CliError('--page must be 1 or more and --per-page 1 to 100.', EXIT.usage);
    return p;
  };
  /** Runs `work` with the backend the options choose, closing it afterwards. */
  const withBackend = async (cmd: Command, work: (b: AdminBackend) => Promise<void>) => {
    // Loaded on use: `--help` and the other commands start without knex, undici or joi.
    const backend = (cmd.optsWithGlobals() as Globals).direct
      ? await (await import('./admin-direct.ts')).directAdminBackend(process.env)
      : (await import('./admin-backend.ts')).apiAdminBackend((await import('../api-client.ts')).apiTarget(process.env, url()));
    try {
      await work(backend);
    } finally {
      await backend.close();
    }
  };

  const tenants = admin.command('tenants').description('tenants');
  tenants.command('list').description('list tenants').action(async (_o, cmd: Command) => withBackend(cmd, async (b) => {
    const r = await b.listTenants(page(cmd));
    print(output(), output().json ? r : r.data, ['id', 'name', 'tier', 'created_at']);
  }));
  tenants.command('create').description('create a tenant').argument('<name>').option('--tier <tier>', 'standard, premium or enterprise', 'standard')
    .action(async (name: string, o: { tier: string }, cmd: Command) => withBackend(cmd, async (b) => print(output(), await b.createTenant({ name, tier: o.tier }), ['id', 'name', 'tier'])));
  tenants.command('get').description('show a tenant').argument('<tenant-id>')
    .action(async (id: string, _o, cmd: Command) => withBackend(cmd, async (b) => print(output(), await b.getTenant(id), ['id', 'name', 'tier', 'created_at', 'updated_at'])));
  tenants.command('update').description('rename a tenant or change its tier').argument('<tenant-id>').option('--name <name>').option('--tier <tier>')
    .action(async (id: string, o: { name?: string; tier?: string }, cmd: Command) => withBackend(cmd, async (b) => print(output(), await b.updateTenant(id, { ...(o.name ? { name: o.name } : {}), ...(o.tier ? { tier: o.tier } : {}) }), ['id', 'name', 'tier'])));

  const users = admin.command('users').description('users of a tenant');
  users.command('list').description('list a tenant\'s users').argument('<tenant-id>').action(async (id: string, _o, cmd: Command) => withBackend(cmd, async (b) => {
    const r = await b.listUsers(id, page(cmd));
    print(output(), output().json ? r : r.data, ['id', 'email', 'name', 'scopes', 'disabled']);
  }));
  users.command('create').description('create a user (the password from a file or standard input, never an argument)').argument('<tenant-id>')
    .requiredOption('--email <email>').option('--name <name>', 'display name', '').requiredOption('--scopes <list>', 'comma-separated scopes')
    .option('--password-file <file>', 'read the password from this file').option('--password-stdin', 'read the password from standard input')
    .action(async (id: string, o: { email: string; name: string; scopes: string; passwordFile?: string; passwordStdin?: boolean }, cmd: Command) => {
      const password = await passwordFrom(o);
      await withBackend(cmd, async (b) => print(output(), await b.createUser(id, { email: o.email, name: o.name, password, scopes: list(o.scopes) }), ['id', 'email', 'scopes']));
    });
  users.command('delete').description('delete a user and their tokens').argument('<user-id>')
    .action(async (id: string, _o, cmd: Command) => withBackend(cmd, async (b) => {
      await b.deleteUser(id);
      if (output().json) print(output(), { deleted: id });
      else note(`deleted ${id}`);
    }));

  const tokens = admin.command('tokens').description('API tokens of a tenant');
  tokens.command('list').description('list a tenant\'s tokens (never their values)').argument('<tenant-id>').option('--include-revoked')
    .action(async (id: string, o: { includeRevoked?: boolean }, cmd: Command) => withBackend(cmd, async (b) => {
      const r = await b.listTokens(id, page(cmd), Boolean(o.includeRevoked));
      print(output(), output().json ? r : r.data, ['id', 'name', 'token_prefix', 'scopes', 'expires_at', 'revoked_at']);
    }));
  tokens.command('create').description('issue a token; its value is printed once, on standard output').argument('<tenant-id>')
    .requiredOption('--name <name>').requiredOption('--scopes <list>', 'comma-separated scopes')
    .option('--expires-in <seconds>', 'lifetime in seconds (60 or more)').option('--user <user-id>', 'the user the token acts for')
    .action(async (id: string, o: { name: string; scopes: string; expiresIn?: string; user?: string }, cmd: Command) => withBackend(cmd, async (b) => {
      const expires = o.expiresIn === undefined ? undefined : Number(o.expiresIn);
      if (expires !== undefined && !Number.isInteger(expires)) throw new CliError('--expires-in must be a whole number of seconds.', EXIT.usage);
      const issued = (await b.createToken(id, { name: o.name, scopes: list(o.scopes), ...(expires ? { expires_in_seconds: expires } : {}), ...(o.user ? { user_id: o.user } : {}) })) as { id: string; token: string; scopes: string[]; expires_at: string | null };
      if (output().json) return print(output(), issued);
      process.stdout.write(`${issued.token}\n`);
      note(`token ${issued.id} (${issued.scopes.join(', ')}${issued.expires_at ? `, expires ${issued.expires_at}` : ''}): shown once, store it now`);
    }));
  tokens.command('revoke').description('revoke a token').argument('<token-id>')
    .action(async (id: string, _o, cmd: Command) => withBackend(cmd, async (b) => print(output(), await b.revokeToken(id), ['id', 'name', 'revoked_at'])));

  findingsRecountCommand(admin, output);
  findingsRededupCommand(admin, output);
}
