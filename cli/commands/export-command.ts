import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import type { ApiTarget } from '../api-client.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { note, print, type OutputOptions } from '../output.ts';

interface ExportOptions {
  format: string;
  output?: string;
  severity?: string;
  status?: string;
  asset?: string;
  scan?: string;
  search?: string;
  cvssMin?: string;
  cvssMax?: string;
  sortBy?: string;
  sortOrder?: string;
  timeout: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes the file to --output (through a temporary name, so a half-written file never has the final name) or stdout. */
async function save(stream: Readable, output: string | undefined): Promise<number> {
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
  if (!output) {
    await pipeline(stream, process.stdout, { end: false });
    return bytes;
  }
  const partial = `${output}.part`;
  try {
    await pipeline(stream, createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, output);
  } catch (err) {
    await rm(partial, { force: true });
    throw new CliError(`Cannot write ${output}: ${(err as Error).message}`, EXIT.failure);
  }
  return bytes;
}

/** Waits for a background export (202) to complete, then downloads it. */
async function backgroundExport(callApi: typeof import('../api-client.ts').callApi, target: ApiTarget, job: { id: string; status_url: string; download_url: string }, timeoutMs: number, quiet: boolean): Promise<Readable> {
  const deadline = Date.now() + timeoutMs;
  if (!quiet) note(`export ${job.id} runs in the background; waiting (up to ${Math.round(timeoutMs / 1000)} s)`);
  for (;;) {
    const view = ((await callApi(target, { method: 'GET', path: job.status_url })).json as { data: { status: string; error: string | null } }).data;
    if (view.status === 'completed') break;
    if (view.status === 'failed' || view.status === 'expired') throw new CliError(`Export ${job.id} ${view.status}${view.error ? `: ${view.error}` : ''}.`, EXIT.serverError);
    if (Date.now() > deadline) throw new CliError(`Export ${job.id} is still ${view.status} after ${Math.round(timeoutMs / 1000)} s; fetch it later from ${job.download_url}.`, EXIT.timeout);
    await sleep(1000);
  }
  return (await callApi(target, { method: 'GET', path: job.download_url }, true)).stream;
}

/** `rampart export findings`: POST /api/findings/export, small exports streamed back, large ones waited for. */
export function exportCommand(program: Command, output: () => OutputOptions, url: () => string | undefined): void {
  const exports = program.command('export').description('export data through the API');
  exports
    .command('findings')
    .description('export findings as CSV, JSON or PDF (the filters of GET /api/findings)')
    .option('--format <format>', 'csv, json or pdf', 'csv')
    .option('-o, --output <file>', 'write the file here (default: standard output)')
    .option('--severity <list>', 'comma-separated severities, e.g. critical,high')
    .option('--status <status>', 'one finding status')
    .option('--asset <id>', 'one asset')
    .option('--scan <id>', 'one scan')
    .option('--search <text>', 'substring of title or description')
    .option('--cvss-min <score>', 'lowest CVSS score')
    .option('--cvss-max <score>', 'highest CVSS score')
    .option('--sort-by <key>', 'severity, cvss, discovered_at or title')
    .option('--sort-order <order>', 'asc or desc')
    .option('--timeout <seconds>', 'how long to wait for a background export', '600')
    .option('--url <url>', 'Rampart base URL (default: RAMPART_URL)')
    .action(async (options: ExportOptions) => {
      const json = output().json;
      if (json && !options.output) throw new CliError('--json prints a summary on standard output: give the file a place with --output.', EXIT.usage);
      if (options.format === 'pdf' && !options.output && process.stdout.isTTY) throw new CliError('A PDF on a terminal is not readable: give --output.', EXIT.usage);
      const timeout = Number(options.timeout);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new CliError('--timeout must be a number of seconds.', EXIT.usage);
      const { apiTarget, callApi } = await import('../api-client.ts');
      const target = apiTarget(process.env, url());
      const filters = Object.fromEntries(Object.entries({
        severity: options.severity, status: options.status, asset_id: options.asset, scan_id: options.scan, search: options.search,
        cvss_min: options.cvssMin === undefined ? undefined : Number(options.cvssMin), cvss_max: options.cvssMax === undefined ? undefined : Number(options.cvssMax),
        sort_by: options.sortBy, sort_order: options.sortOrder,
      }).filter(([, v]) => v !== undefined));
      const started = await callApi(target, { method: 'POST', path: '/api/findings/export', json: { format: options.format, filters } }, true);
      let stream: Readable = started.stream;
      let exportId: string | null = null;
      if (started.status === 202) {
        const job = (JSON.parse(await started.stream.text()) as { data: { id: string; status_url: string; download_url: string } }).data;
        exportId = job.id;
        stream = await backgroundExport(callApi, target, job, timeout * 1000, json);
      }
      const bytes = await save(stream, options.output);
      if (json) print(output(), { format: options.format, output: options.output, bytes, export_id: exportId });
      else if (options.output) note(`wrote ${bytes} bytes to ${options.output}`);
    });
}
