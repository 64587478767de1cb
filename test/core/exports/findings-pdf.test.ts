import test from 'ava';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { pdfStage } from '../../../core/exports/findings-pdf.ts';
import type { ExportFinding, ExportSummary, ManagementFigures } from '../../../core/exports/finding-export-repository.ts';

// The PDF is checked the way a reader sees it: poppler renders every page (pdftoppm) and
// reports each word with its box (pdftotext -bbox). Poppler is a Debian package
// (poppler-utils); CI installs it, elsewhere these tests skip with the reason printed.
const HAVE_POPPLER = spawnSync('pdftoppm', ['-v']).error === undefined && spawnSync('pdftotext', ['-v']).error === undefined;
const REQUIRED = process.env.RAMPART_REQUIRE_SERVICES === '1';
if (!HAVE_POPPLER) console.warn(REQUIRED ? 'poppler-utils is missing but required' : 'skipping the PDF rendering tests: pdftoppm/pdftotext (poppler-utils) not installed');
const maybe = HAVE_POPPLER || REQUIRED ? test : test.skip;

const NOW = Date.UTC(2026, 10, 24, 9, 30);

function finding(i: number, evidenceLines: number): ExportFinding {
  return {
    id: `fnd_${String(i).padStart(26, '0')}`, title: `Database dump reachable ${i}`, severity: 'critical', cvss: 9.1,
    cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N', status: 'open',
    asset: { id: 'ast_x', name: 'shop.example', type: 'domain' }, scan_id: null,
    description: 'A SQL dump is served to anyone.', remediation: 'Remove the file and rotate the credentials in it.',
    evidence: { url: `http://shop.example/backup/${i}.sql`, body: Array.from({ length: evidenceLines }, (_, n) => `INSERT INTO users VALUES (${n}, 'user${n}@shop.example');`).join('\n') },
    references: ['https://owasp.org/www-project-top-ten/'], tags: ['web'], discovered_at: new Date(NOW).toISOString(), updated_at: new Date(NOW).toISOString(),
  };
}

const summary: ExportSummary = {
  total: 3, by_severity: { critical: 3, high: 0, medium: 0, low: 0, info: 0 }, by_status: { open: 3, confirmed: 0, resolved: 0, false_positive: 0, accepted_risk: 0 },
  trend: Array.from({ length: 30 }, (_, i) => ({ day: new Date(NOW - (29 - i) * 86_400_000).toISOString().slice(0, 10), new: i === 29 ? 3 : 0, resolved: 0 })),
  last_30_days: { new: 3, resolved: 0, net_change: 3 },
};
const figures: ManagementFigures = {
  tenantName: 'Acme Security', assetName: null, period: { from: NOW, to: NOW }, unresolvedBySeverity: summary.by_severity,
  topRisks: [{ title: 'Database dump reachable 0', severity: 'critical', cvss: 9.1, status: 'open', asset: 'shop.example' }],
  riskiestAssets: [{ name: 'shop.example', type: 'domain', unresolved: 3, critical: 3, high: 0, maxCvss: 9.1 }],
};

async function render(findings: ExportFinding[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stage = pdfStage(summary, { generatedAt: '24 November 2026, 09:30 UTC', filters: 'All findings of the tenant', management: { figures, scope: 'All findings of the tenant', generatedAt: NOW } });
  await pipeline(Readable.from(findings), stage, new Writable({ write(c: Buffer, _e, done) { chunks.push(c); done(); } }));
  return Buffer.concat(chunks);
}

interface Word { page: number; text: string; yMin: number; yMax: number; pageHeight: number }

function words(pdf: string): Word[] {
  const html = execFileSync('pdftotext', ['-bbox', pdf, '-'], { encoding: 'utf8' });
  const out: Word[] = [];
  let page = 0;
  let height = 0;
  for (const line of html.split('\n')) {
    const p = /<page width="[\d.]+" height="([\d.]+)">/.exec(line);
    if (p) { page += 1; height = Number(p[1]); continue; }
    const w = /<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">(.*)<\/word>/.exec(line);
    if (w) out.push({ page, text: w[3]!, yMin: Number(w[1]), yMax: Number(w[2]), pageHeight: height });
  }
  return out;
}

/** Share of a page's pixels that are not white, from pdftoppm's greyscale PGM output. */
function ink(pgm: Buffer): number {
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'))!;
  const pixels = pgm.subarray(header[0].length);
  let dark = 0;
  for (const v of pixels) if (v < 200) dark += 1;
  return dark / pixels.length;
}

maybe('text that flows over a page keeps its own font; the footer band holds only the footer; no page is nearly empty', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-pdf-'));
  try {
    const pdf = join(dir, 'report.pdf');
    // Evidence long enough to cross at least one page break in the middle of a block.
    writeFileSync(pdf, await render([finding(0, 20), finding(1, 140), finding(2, 12)]));
    const all = words(pdf);
    const pages = Math.max(...all.map((w) => w.page));
    t.true(pages >= 4, `expected the evidence to flow over pages, got ${pages}`);
    for (const w of all) {
      const inFooterBand = w.yMin > w.pageHeight - 45;
      // Footer words: only "Rampart findings report · page N", always in the band.
      if (inFooterBand) t.regex(w.text, /^(Rampart|findings|report|·|page|\d+)$/, `page ${w.page}: "${w.text}" sits in the footer band`);
      // From page 3 on (finding blocks) body text is 8.5–12 pt: nothing as small as the 7-pt footer.
      else if (w.page >= 3) t.true(w.yMax - w.yMin > 7.9, `page ${w.page}: "${w.text}" is in footer-sized type (${(w.yMax - w.yMin).toFixed(1)} pt)`);
    }
    const lastBody = all.filter((w) => w.page === pages && w.yMin <= w.pageHeight - 45);
    t.true(lastBody.length >= 5, `the last page holds only ${lastBody.length} words`);
    execFileSync('pdftoppm', ['-r', '40', '-gray', pdf, join(dir, 'page')]);
    const images = readdirSync(dir).filter((f) => f.startsWith('page')).sort();
    t.is(images.length, pages);
    for (const image of images) t.true(ink(readFileSync(join(dir, image))) > 0.004, `${image} is nearly empty`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

maybe('the first page is the management summary: scope, dates in words with time zone, posture, tables, trend', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rampart-pdf-'));
  try {
    const pdf = join(dir, 'report.pdf');
    writeFileSync(pdf, await render([finding(0, 3)]));
    const first = execFileSync('pdftotext', ['-f', '1', '-l', '1', pdf, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    for (const expected of ['Security findings: management summary', 'Organisation: Acme Security', 'Scope: All findings of the tenant',
      'Findings discovered between 24 November 2026 and 24 November 2026', 'Prepared: 24 November 2026, 09:30 UTC', 'Risk posture: critical.',
      'Top 10 unresolved risks', 'Database dump reachable 0', 'Riskiest assets', 'shop.example', 'Trend, last 30 days: 3 new, 0 resolved']) {
      t.true(first.includes(expected), `page 1 lacks ${JSON.stringify(expected)}: ${first}`);
    }
    const second = execFileSync('pdftotext', ['-f', '2', '-l', '2', pdf, '-'], { encoding: 'utf8' });
    t.true(second.includes('Findings by severity'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
