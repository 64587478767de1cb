import { createReadStream, statSync } from 'node:fs';
import type { Command } from 'commander';
import { IMPORT_FORMATS } from '../../core/imports/import-result.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { print, type OutputOptions } from '../output.ts';

const CONTENT_TYPE: Record<string, string> = { sarif: 'application/sarif+json', nuclei: 'application/x-ndjson', zap: 'application/json', nmap: 'application/xml', bandit: 'application/json', gitleaks: 'application/json' };

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `rampart import <format> <file>`: POST /api/findings/import, the file streamed from disk. */
export function importCommand(program: Command, output: () => OutputOptions, url: () => string | undefined): void {
  program
    .command('import')
    .description('import another tool\'s result file as findings (docs/importers.md)')
    .argument('<format>', `the tool that wrote the file: ${IMPORT_FORMATS.join(', ')}`)
    .argument('<file>', 'the file, as the tool wrote it (- for standard input)')
    .option('--asset <id>', 'the asset of every result not mapped otherwise')
    .option('--map <target=asset>', 'send results whose target (host, URL, site, repository) is <target> to that asset; repeatable', collect)
    .option('--map-by-name', 'send results to the tenant\'s asset named like their target')
    .option('--scan <id>', 'link the findings to this scan of their asset')
    .option('--url <url>', 'Rampart base URL (default: RAMPART_URL)')
    .action(async (format: string, file: string, options: { asset?: string; map?: string[]; mapByName?: boolean; scan?: string }) => {
      if (!(IMPORT_FORMATS as readonly string[]).includes(format)) throw new CliError(`Unknown format "${format}": use ${IMPORT_FORMATS.join(', ')}.`, EXIT.usage);
      const { apiTarget, callApi } = await import('../api-client.ts');
      const target = apiTarget(process.env, url());
      const query = new URLSearchParams({ format });
      if (options.asset) query.set('asset_id', options.asset);
      for (const m of options.map ?? []) query.append('map', m);
      if (options.mapByName) query.set('map_by_name', 'true');
      if (options.scan) query.set('scan_id', options.scan);
      const headers: Record<string, string> = { 'content-type': CONTENT_TYPE[format]! };
      let body;
      if (file === '-') body = process.stdin;
      else {
        try {
          headers['content-length'] = String(statSync(file).size);
        } catch (err) {
          throw new CliError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`, EXIT.usage);
        }
        body = createReadStream(file);
      }
      const res = await callApi(target, { method: 'POST', path: `/api/findings/import?${query}`, body, headers });
      const summary = (res.json as { data: Record<string, unknown> }).data;
      if (output().json) return print(output(), summary);
      const s = summary as { results: number; created: number; seen_again: number; reopened: number; duplicates: number; skipped: number; assets: Array<{ id: string; name: string; results: number }> };
      process.stdout.write(`${s.results} results: ${s.created} new findings, ${s.seen_again} seen again, ${s.reopened} reopened, ${s.duplicates} duplicates, ${s.skipped} skipped\n`);
      for (const a of s.assets) process.stdout.write(`  ${a.name} (${a.id}): ${a.results} results\n`);
    });
}
