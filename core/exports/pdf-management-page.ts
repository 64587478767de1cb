import type { Severity } from '../domain/severity.ts';
import type { ExportSummary, ManagementFigures } from './finding-export-repository.ts';
import { lineChart } from './pdf-charts.ts';
import { dateTimeInWords, dayInWords, postureSentence } from './report-words.ts';

type Doc = PDFKit.PDFDocument;

export interface ManagementPage {
  summary: ExportSummary;
  figures: ManagementFigures;
  /** The export's scope in words (report-words.ts filtersInWords). */
  scope: string;
  generatedAt: number;
  severityColors: Record<Severity, string>;
}

const INK = '#212121';
const MUTED = '#424242';

interface Column {
  heading: string;
  width: number;
  align?: 'left' | 'right';
}

/** A plain table: a bold heading row, a rule, then one line per row (cells are clipped to one line). */
function table(doc: Doc, x: number, columns: Column[], rows: string[][], empty: string): void {
  let y = doc.y;
  const line = (cells: string[], font: 'bold' | 'body') => {
    let cx = x;
    doc.font(font).fontSize(8.5).fillColor(font === 'bold' ? INK : MUTED);
    cells.forEach((cell, i) => {
      const c = columns[i]!;
      doc.text(cell, cx, y, { width: c.width - 6, align: c.align ?? 'left', lineBreak: false, ellipsis: true, height: 11 });
      cx += c.width;
    });
    y += 13;
  };
  line(columns.map((c) => c.heading), 'bold');
  const total = columns.reduce((a, c) => a + c.width, 0);
  doc.moveTo(x, y - 2).lineTo(x + total, y - 2).lineWidth(0.5).strokeColor('#9e9e9e').stroke();
  if (rows.length === 0) {
    doc.font('body').fontSize(8.5).fillColor(MUTED).text(empty, x, y, { width: total });
    y += 13;
  }
  for (const row of rows) line(row, 'body');
  doc.x = x;
  doc.y = y + 6;
}

function heading(doc: Doc, x: number, text: string, width: number): void {
  doc.moveDown(0.6).font('bold').fontSize(11).fillColor(INK).text(text, x, doc.y, { width });
  doc.moveDown(0.25);
}

/**
 * The report's first page, for readers who will not read the rest: who and what it covers,
 * the posture in one sentence, the ten worst unresolved findings, the riskiest assets and
 * the 30-day trend. Everything on it is in words a manager reads (no query syntax, dates
 * spelled out with their time zone).
 */
export function managementPage(doc: Doc, margin: number, page: ManagementPage): void {
  const { summary, figures } = page;
  const width = doc.page.width - 2 * margin;
  doc.font('bold').fontSize(18).fillColor(INK).text('Security findings: management summary', margin, margin, { width });
  doc.moveDown(0.3).font('body').fontSize(9.5).fillColor(MUTED);
  const period = figures.period
    ? `Findings discovered between ${dayInWords(figures.period.from)} and ${dayInWords(figures.period.to)}.`
    : 'No finding is in scope.';
  doc.text(`Organisation: ${figures.tenantName ?? 'unknown'}`, { width });
  doc.text(`Scope: ${page.scope}`, { width });
  doc.text(`Period: ${period} Trend over the 30 days to ${dateTimeInWords(page.generatedAt)}.`, { width });
  doc.text(`Prepared: ${dateTimeInWords(page.generatedAt)}. ${summary.total} finding${summary.total === 1 ? '' : 's'} in scope.`, { width });

  doc.moveDown(0.6).font('bold').fontSize(11.5).fillColor(INK)
    .text(postureSentence({ unresolved: figures.unresolvedBySeverity, last30: summary.last_30_days }), margin, doc.y, { width });

  heading(doc, margin, 'Top 10 unresolved risks', width);
  table(doc, margin, [
    { heading: 'Severity', width: 62 }, { heading: 'CVSS', width: 36, align: 'right' }, { heading: 'Finding', width: width - 62 - 36 - 130 - 70 },
    { heading: 'Asset', width: 130 }, { heading: 'Status', width: 70 },
  ], figures.topRisks.map((r) => [r.severity.toUpperCase(), r.cvss.toFixed(1), r.title, r.asset, r.status.replace('_', ' ')]), 'No open or confirmed finding in scope.');

  heading(doc, margin, 'Riskiest assets', width);
  table(doc, margin, [
    { heading: 'Asset', width: width - 60 - 70 - 50 - 50 - 70 }, { heading: 'Type', width: 60 }, { heading: 'Worst CVSS', width: 70, align: 'right' },
    { heading: 'Critical', width: 50, align: 'right' }, { heading: 'High', width: 50, align: 'right' }, { heading: 'Unresolved', width: 70, align: 'right' },
  ], figures.riskiestAssets.map((a) => [a.name, a.type, a.maxCvss.toFixed(1), String(a.critical), String(a.high), String(a.unresolved)]), 'No asset has an open or confirmed finding in scope.');

  const top = doc.y + 8;
  const height = Math.min(170, doc.page.height - margin - 20 - top);
  if (height >= 100) {
    const { new: created, resolved } = summary.last_30_days;
    lineChart(doc, { x: margin, y: top, width, height }, `Trend, last 30 days: ${created} new, ${resolved} resolved`,
      summary.trend.map((d) => d.day),
      [
        { label: 'new', color: '#c62828', values: summary.trend.map((d) => d.new) },
        { label: 'resolved', color: '#2e7d32', values: summary.trend.map((d) => d.resolved) },
      ]);
  }
}
