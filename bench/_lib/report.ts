import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPORTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'reports');

/**
 * Replaces one engine's section of bench/reports/<area>.md (between HTML comment
 * markers), keeping the other engines' latest figures, so SQLite and MariaDB can be
 * run separately and still end up in one report.
 */
export function writeReportSection(area: string, section: string, lines: string[]): void {
  mkdirSync(REPORTS, { recursive: true });
  const file = join(REPORTS, `${area}.md`);
  const begin = `<!-- section:${section} -->`;
  const end = `<!-- /section:${section} -->`;
  const machine = `${new Date().toISOString()} · Node ${process.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM · load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')} (other work on the machine skews timings)`;
  const block = [begin, `## ${section}`, '', `_Run ${machine}_`, '', ...lines, end].join('\n');
  let text = existsSync(file) ? readFileSync(file, 'utf8') : `# Benchmark: ${area}\n\nWritten by \`npm run bench -- ${area}\`; each section is replaced by the latest run on that engine.\n`;
  const at = text.indexOf(begin);
  if (at >= 0) {
    const stop = text.indexOf(end, at);
    text = text.slice(0, at) + block + text.slice(stop + end.length);
  } else {
    text = `${text.trimEnd()}\n\n${block}\n`;
  }
  writeFileSync(file, text);
}
