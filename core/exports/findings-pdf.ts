import { Transform } from 'node:stream';
import { projectPath } from '../runtime/project-files.ts';
import { createRequire } from 'node:module';
import type PdfKitDocument from 'pdfkit';
import type { ExportFinding, ExportSummary } from './finding-export-repository.ts';
import type { Severity } from '../domain/severity.ts';
import { barChart, donutChart, lineChart } from './pdf-charts.ts';
import { managementPage, type ManagementPage } from './pdf-management-page.ts';

// pdfkit costs about 0.7 s of CPU to load; only a process that writes a PDF pays it.
const requireLazily = createRequire(import.meta.url);
let PDFDocument: typeof PdfKitDocument | undefined;

// Vendored (assets/fonts, Bitstream Vera licence): the standard PDF fonts only cover
// WinAnsi, so names like "Müller → 東" would come out garbled without an embedded TTF.
const FONT = projectPath('resources/fonts/DejaVuSans.ttf');
const FONT_BOLD = projectPath('resources/fonts/DejaVuSans-Bold.ttf');

export const SEVERITY_COLORS: Record<Severity, string> = {
  critical: '#8e0000', high: '#d84315', medium: '#f9a825', low: '#1e88e5', info: '#90a4ae',
};
const STATUS_COLORS = { open: '#e53935', confirmed: '#fb8c00', resolved: '#43a047', false_positive: '#8d6e63', accepted_risk: '#5e35b1' };
// Long free text is cut in the PDF (the CSV and JSON exports carry it whole).
const MAX_FIELD_CHARS = 4000;
const MARGIN = 50;

export interface PdfMeta {
  generatedAt: string;
  filters: string;
  /** The first page's figures and words (the summary and colours are added here). */
  management: Omit<ManagementPage, 'summary' | 'severityColors'>;
}

const clip = (s: string) => (s.length > MAX_FIELD_CHARS ? `${s.slice(0, MAX_FIELD_CHARS)} … (truncated)` : s);

function cover(doc: PDFKit.PDFDocument, summary: ExportSummary, meta: PdfMeta): void {
  const width = doc.page.width - 2 * MARGIN;
  doc.font('bold').fontSize(20).fillColor('#212121').text('Findings report', MARGIN, MARGIN);
  doc.font('body').fontSize(9).fillColor('#616161')
    .text(`Generated ${meta.generatedAt} · ${summary.total} finding${summary.total === 1 ? '' : 's'} · ${meta.filters}`, { width });
  const top = doc.y + 16;
  barChart(doc, { x: MARGIN, y: top, width: width * 0.5 - 10, height: 210 }, 'Findings by severity',
    (Object.keys(SEVERITY_COLORS) as Severity[]).map((s) => ({ label: s, value: summary.by_severity[s], color: SEVERITY_COLORS[s] })));
  donutChart(doc, { x: MARGIN + width * 0.5 + 10, y: top, width: width * 0.5 - 10, height: 210 }, 'Findings by status',
    (Object.keys(STATUS_COLORS) as Array<keyof typeof STATUS_COLORS>).map((s) => ({ label: s.replace('_', ' '), value: summary.by_status[s], color: STATUS_COLORS[s] })));
  const { new: created, resolved, net_change: net } = summary.last_30_days;
  lineChart(doc, { x: MARGIN, y: top + 240, width, height: 230 },
    `30-day trend: ${created} new, ${resolved} resolved, net change ${net > 0 ? '+' : ''}${net}`,
    summary.trend.map((d) => d.day),
    [
      { label: 'new', color: '#e53935', values: summary.trend.map((d) => d.new) },
      { label: 'resolved', color: '#43a047', values: summary.trend.map((d) => d.resolved) },
    ]);
}

/** pdfkit's current text style, which it keeps as private fields. */
interface TextState {
  _font: unknown;
  _fontSize: number;
  _fillColor: unknown;
  _fillOpacity?: unknown;
}

function footer(doc: PDFKit.PDFDocument, page: number): void {
  // A page can be added in the middle of a text() call that flows over the page end; the
  // text then goes on with whatever style is current. So the style is put back afterwards:
  // without this the rest of a long evidence block came out in the footer's small grey.
  const state = doc as unknown as TextState;
  const saved = { font: state._font, size: state._fontSize, fill: state._fillColor, opacity: state._fillOpacity };
  // Below the bottom margin: lift the margin so pdfkit does not start a new page.
  const bottom = doc.page.margins.bottom;
  doc.page.margins.bottom = 0;
  doc.font('body').fontSize(7).fillColor('#9e9e9e')
    .text(`Rampart findings report · page ${page}`, MARGIN, doc.page.height - 30, { width: doc.page.width - 2 * MARGIN, align: 'center', lineBreak: false });
  doc.page.margins.bottom = bottom;
  state._font = saved.font;
  state._fontSize = saved.size;
  state._fillColor = saved.fill;
  state._fillOpacity = saved.opacity;
  doc.x = MARGIN;
  doc.y = MARGIN;
}

function section(doc: PDFKit.PDFDocument, heading: string, body: string, width: number): void {
  if (!body) return;
  doc.moveDown(0.35).font('bold').fontSize(9.5).fillColor('#212121').text(heading, MARGIN, doc.y, { width });
  doc.font('body').fontSize(9).fillColor('#212121').text(clip(body), { width });
}

function finding(doc: PDFKit.PDFDocument, f: ExportFinding, index: number): void {
  const width = doc.page.width - 2 * MARGIN;
  // Keep a heading with at least a few lines of its body.
  if (doc.y > doc.page.height - MARGIN - 140) doc.addPage();
  else if (index > 0) {
    doc.moveDown(0.8);
    doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + width, doc.y).lineWidth(0.4).strokeColor('#bdbdbd').stroke();
    doc.moveDown(0.8);
  }
  const y = doc.y;
  doc.rect(MARGIN, y, 4, 16).fillColor(SEVERITY_COLORS[f.severity]).fill();
  doc.font('bold').fontSize(12).fillColor('#212121').text(f.title, MARGIN + 10, y + 1, { width: width - 10 });
  doc.font('body').fontSize(8.5).fillColor('#424242').text(
    [
      `${f.severity.toUpperCase()} · CVSS ${f.cvss.toFixed(1)} · ${f.cvss_vector}`,
      `Status: ${f.status.replace('_', ' ')} · Asset: ${f.asset.name} (${f.asset.type}) · ID: ${f.id}${f.scan_id ? ` · Scan: ${f.scan_id}` : ''}`,
      `Discovered ${f.discovered_at} · Updated ${f.updated_at}`,
    ].join('\n'),
    MARGIN + 10, doc.y + 2, { width: width - 10 },
  );
  section(doc, 'Description', f.description, width);
  section(doc, 'Remediation', f.remediation, width);
  const evidence = Object.entries(f.evidence).filter(([, v]) => v !== null && v !== undefined && v !== '');
  section(doc, 'Evidence', evidence.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n'), width);
  section(doc, 'References', f.references.join('\n'), width);
  section(doc, 'Tags', f.tags.join(', '), width);
}

/**
 * Findings (object mode) → PDF bytes: a cover page with the summary charts, then one
 * block per finding. pdfkit writes each page out as it is finished (no page
 * buffering), so memory stays bounded by one page plus the font subset.
 */
export function pdfStage(summary: ExportSummary, meta: PdfMeta): Transform {
  PDFDocument ??= requireLazily('pdfkit') as typeof PdfKitDocument;
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, bufferPages: false, info: { Title: 'Findings report', Creator: 'Rampart' } });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', FONT_BOLD);
  let index = 0;
  let pages = 0;
  const stage = new Transform({
    writableObjectMode: true,
    transform(f: ExportFinding, _enc, done) {
      if (index === 0) doc.addPage();
      finding(doc, f, index++);
      done();
    },
    flush(done) {
      if (index === 0) {
        doc.addPage();
        doc.font('body').fontSize(10).fillColor('#616161').text('No findings match these filters.', MARGIN, MARGIN);
      }
      doc.once('end', () => done());
      doc.end();
    },
  });
  doc.on('data', (chunk: Buffer) => stage.push(chunk));
  doc.on('error', (err: Error) => stage.destroy(err));
  doc.on('pageAdded', () => footer(doc, ++pages));
  footer(doc, ++pages);
  managementPage(doc, MARGIN, { ...meta.management, summary, severityColors: SEVERITY_COLORS });
  doc.addPage();
  cover(doc, summary, meta);
  return stage;
}
