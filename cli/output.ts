import { CliError } from './exit-codes.ts';

export interface OutputOptions {
  json: boolean;
}

/** Prints a result: the API's JSON with --json (for scripts), else aligned columns for people. */
export function print(options: OutputOptions, value: unknown, columns?: string[]): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const rows = Array.isArray(value) ? value : [value];
  if (!rows.length) {
    process.stdout.write('(none)\n');
    return;
  }
  const keys = columns ?? Object.keys(rows[0] as object);
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const table = [keys, ...rows.map((r) => keys.map((k) => cell((r as Record<string, unknown>)[k])))];
  const widths = keys.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) process.stdout.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
}

/** A message for people on stderr (never mixed into --json output on stdout). */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** How a failure is shown: one line on stderr, or the error as JSON on stdout with --json. */
export function report(options: OutputOptions, err: CliError): void {
  if (options.json) process.stdout.write(`${JSON.stringify({ error: (err.body as { error?: unknown } | null)?.error ?? { message: err.message }, exit_code: err.exitCode }, null, 2)}\n`);
  else process.stderr.write(`rampart: ${err.message}\n`);
}
