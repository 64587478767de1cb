import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { configuredDatabase } from '../configured-database.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { note, print, type OutputOptions } from '../output.ts';

const FEED_NAMES = ['kev', 'epss'];

function feedArg(value: string): 'kev' | 'epss' {
  if (!FEED_NAMES.includes(value)) throw new InvalidArgumentError(`expected kev or epss, got "${value}"`);
  return value as 'kev' | 'epss';
}

/**
 * `rampart feeds load kev|epss FILE` and `rampart feeds status`: the KEV and EPSS feeds on
 * the database the configuration names (like `migrate`), for sites that carry the files in
 * by hand. FILE `-` reads standard input. A refused feed exits 4 and changes nothing.
 * docs/feeds.md describes the formats.
 */
export function feedsCommand(program: Command, output: () => OutputOptions): void {
  const feeds = program.command('feeds').description('the KEV catalog and EPSS scores: load a feed file, show what is loaded');
  feeds.command('load')
    .description('load a CISA KEV catalog (JSON) or FIRST EPSS scores (CSV, gzipped or not) from a file; works on the database')
    .argument('<feed>', 'kev or epss', feedArg)
    .argument('<file>', 'the feed file, or - for standard input')
    .action(async (feed: 'kev' | 'epss', file: string) => {
      const { createReadStream } = await import('node:fs');
      const { resolve } = await import('node:path');
      const { loadConfig } = await import('../../config/load-config.ts');
      const { FeedStore } = await import('../../core/feeds/feed-store.ts');
      const { FeedRefusedError } = await import('../../core/feeds/feed-types.ts');
      const stream = file === '-' ? process.stdin : createReadStream(file);
      const opened = await new Promise<Error | null>((done) => {
        if (file === '-') return done(null);
        stream.once('open', () => done(null));
        stream.once('error', (err: Error) => done(err));
      });
      if (opened) throw new CliError(`Cannot read ${file}: ${opened.message}`, EXIT.usage);
      const db = await withMigratedDatabase();
      try {
        const config = loadConfig();
        const store = new FeedStore(db, { maxBytes: config.feeds.maxBytes, keepChangeSets: config.feeds.keepChangeSets });
        const location = file === '-' ? '(standard input)' : resolve(file);
        let result;
        try {
          result = await store.load(feed, { kind: 'file', location }, stream as AsyncIterable<Buffer>);
        } catch (err) {
          if (err instanceof FeedRefusedError) throw new CliError(err.message, EXIT.refused, { error: { code: err.code, message: err.message, details: [{ field: err.where, message: err.message }] } });
          throw err;
        }
        const view = { load_id: result.loadId, feed, feed_date: result.feedDate, feed_version: result.feedVersion, rows: result.rows, added: result.added, removed: result.removed, changed: result.changed, sha256: result.sha256, bytes: result.bytes };
        if (output().json) print(output(), view);
        else note(`${feed.toUpperCase()} ${result.feedVersion} (${result.feedDate}) loaded from ${location}: ${result.rows} rows; ${result.added} added, ${result.removed} removed, ${result.changed} changed; sha256 ${result.sha256}`);
      } finally {
        if (file !== '-') stream.destroy();
        await db.destroy();
      }
    });
  feeds.command('status')
    .description('the feed in force and the latest loads of each feed (refused ones with their error)')
    .option('--recent <n>', 'loads listed per feed', (v) => Number(v), 5)
    .action(async (o: { recent: number }) => {
      const { loadConfig } = await import('../../config/load-config.ts');
      const { feedStatus } = await import('../../core/feeds/feed-status.ts');
      const db = await withMigratedDatabase();
      try {
        const config = loadConfig();
        const status = await feedStatus(db, { recent: Math.max(1, Math.min(50, o.recent || 5)), withLocation: true, schedules: { kev: config.feeds.kev, epss: config.feeds.epss } });
        if (output().json) print(output(), status);
        else print(output(), status.flatMap((s) => s.recent.map((l) => ({ feed: s.feed, status: l.status, feed_date: l.feed_date, rows: l.rows, added: l.added, removed: l.removed, changed: l.changed, started_at: l.started_at, source: l.source.location, error: l.error }))),
          ['feed', 'status', 'feed_date', 'rows', 'added', 'removed', 'changed', 'started_at', 'source', 'error']);
      } finally {
        await db.destroy();
      }
    });
}

async function withMigratedDatabase() {
  const { pendingMigrations } = await import('./migrate-command.ts');
  const db = await configuredDatabase();
  const pending = await pendingMigrations(db).catch(async (err: Error) => {
    await db.destroy();
    throw new CliError(`Cannot use the database: ${err.message}`, EXIT.unavailable);
  });
  if (pending.length) {
    await db.destroy();
    throw new CliError(`The database needs ${pending.length} migration(s) first: run \`rampart migrate\`.`, EXIT.unavailable);
  }
  return db;
}
