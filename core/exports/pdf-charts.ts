/**
 * Charts drawn as PDF vector paths with pdfkit (no raster images, no chart library):
 * they stay sharp at any zoom and their labels remain extractable text.
 */
type Doc = PDFKit.PDFDocument;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Slice {
  label: string;
  value: number;
  color: string;
}

const AXIS = '#9e9e9e';
const INK = '#212121';

/** Axis maximum with 4 whole-number ticks: 4 × (1, 2 or 5 × 10^k). */
function niceMax(value: number): number {
  const raw = Math.max(1, value / 4);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw && Number.isInteger(s)) ?? Math.ceil(raw);
  return 4 * step;
}

function title(doc: Doc, box: Box, text: string): void {
  doc.font('bold').fontSize(11).fillColor(INK).text(text, box.x, box.y, { width: box.width, lineBreak: false });
}

/** Vertical bars with value labels, y axis with 5 ticks. */
export function barChart(doc: Doc, box: Box, heading: string, slices: Slice[]): void {
  title(doc, box, heading);
  const plot = { x: box.x + 34, y: box.y + 24, width: box.width - 40, height: box.height - 52 };
  const max = niceMax(Math.max(0, ...slices.map((s) => s.value)));
  doc.font('body').fontSize(7).fillColor(AXIS);
  for (let i = 0; i <= 4; i++) {
    const y = plot.y + plot.height - (plot.height * i) / 4;
    doc.moveTo(plot.x, y).lineTo(plot.x + plot.width, y).lineWidth(0.3).strokeColor('#e0e0e0').stroke();
    doc.text(String(Math.round((max * i) / 4)), box.x, y - 3, { width: 30, align: 'right', lineBreak: false });
  }
  const slot = plot.width / slices.length;
  slices.forEach((s, i) => {
    const h = (plot.height * s.value) / max;
    const x = plot.x + i * slot + slot * 0.18;
    const w = slot * 0.64;
    if (h > 0) doc.rect(x, plot.y + plot.height - h, w, h).fillColor(s.color).fill();
    doc.font('body').fontSize(8).fillColor(INK).text(String(s.value), x - 10, plot.y + plot.height - h - 11, { width: w + 20, align: 'center', lineBreak: false });
    doc.fontSize(7).fillColor(INK).text(s.label, plot.x + i * slot, plot.y + plot.height + 5, { width: slot, align: 'center', lineBreak: false });
  });
  doc.moveTo(plot.x, plot.y + plot.height).lineTo(plot.x + plot.width, plot.y + plot.height).lineWidth(0.8).strokeColor(AXIS).stroke();
}

/** Donut chart (arc paths) with a legend of label, count and share. */
export function donutChart(doc: Doc, box: Box, heading: string, slices: Slice[]): void {
  title(doc, box, heading);
  const r = Math.min(box.width * 0.42, box.height - 40) / 2;
  const cx = box.x + r + 4;
  const cy = box.y + 28 + r;
  const total = slices.reduce((sum, s) => sum + s.value, 0);
  if (total === 0) {
    doc.circle(cx, cy, r).lineWidth(r * 0.45).strokeColor('#eeeeee').stroke();
  } else {
    let angle = -Math.PI / 2;
    for (const s of slices.filter((x) => x.value > 0)) {
      const sweep = (2 * Math.PI * s.value) / total;
      sector(doc, cx, cy, r, r * 0.55, angle, angle + sweep, s.color);
      angle += sweep;
    }
  }
  doc.font('bold').fontSize(10).fillColor(INK).text(String(total), cx - r, cy - 5, { width: 2 * r, align: 'center', lineBreak: false });
  let ly = box.y + 30;
  const lx = box.x + 2 * r + 16;
  for (const s of slices) {
    doc.rect(lx, ly, 8, 8).fillColor(s.color).fill();
    const share = total ? ` (${Math.round((100 * s.value) / total)}%)` : '';
    doc.font('body').fontSize(8).fillColor(INK).text(`${s.label}: ${s.value}${share}`, lx + 12, ly, { width: box.x + box.width - lx - 12, lineBreak: false });
    ly += 14;
  }
}

/** One ring sector from angle a0 to a1 (radians), as a closed path of two arcs. */
function sector(doc: Doc, cx: number, cy: number, outer: number, inner: number, a0: number, a1: number, color: string): void {
  // A full circle cannot be one SVG arc: split it in two halves.
  if (a1 - a0 >= 2 * Math.PI - 1e-9) {
    const mid = a0 + Math.PI;
    sector(doc, cx, cy, outer, inner, a0, mid, color);
    sector(doc, cx, cy, outer, inner, mid, a1, color);
    return;
  }
  const large = a1 - a0 > Math.PI ? 1 : 0;
  const p = (radius: number, a: number) => `${(cx + radius * Math.cos(a)).toFixed(2)} ${(cy + radius * Math.sin(a)).toFixed(2)}`;
  doc
    .path(`M ${p(outer, a0)} A ${outer} ${outer} 0 ${large} 1 ${p(outer, a1)} L ${p(inner, a1)} A ${inner} ${inner} 0 ${large} 0 ${p(inner, a0)} Z`)
    .fillColor(color)
    .fill();
}

export interface Series {
  label: string;
  color: string;
  values: number[];
}

/** Line chart over days: one polyline per series, dots, x labels every 5 days, legend. */
export function lineChart(doc: Doc, box: Box, heading: string, days: string[], series: Series[]): void {
  title(doc, box, heading);
  const plot = { x: box.x + 34, y: box.y + 38, width: box.width - 40, height: box.height - 66 };
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  doc.font('body').fontSize(7).fillColor(AXIS);
  for (let i = 0; i <= 4; i++) {
    const y = plot.y + plot.height - (plot.height * i) / 4;
    doc.moveTo(plot.x, y).lineTo(plot.x + plot.width, y).lineWidth(0.3).strokeColor('#e0e0e0').stroke();
    doc.text(String(Math.round((max * i) / 4)), box.x, y - 3, { width: 30, align: 'right', lineBreak: false });
  }
  const step = days.length > 1 ? plot.width / (days.length - 1) : 0;
  const xy = (i: number, v: number): [number, number] => [plot.x + i * step, plot.y + plot.height - (plot.height * v) / max];
  days.forEach((day, i) => {
    if (i % 5 !== 0 && i !== days.length - 1) return;
    doc.font('body').fontSize(6.5).fillColor(INK).text(day.slice(5), plot.x + i * step - 15, plot.y + plot.height + 5, { width: 30, align: 'center', lineBreak: false });
  });
  for (const s of series) {
    s.values.forEach((v, i) => {
      const [x, y] = xy(i, v);
      if (i === 0) doc.moveTo(x, y);
      else doc.lineTo(x, y);
    });
    doc.lineWidth(1.5).strokeColor(s.color).stroke();
    s.values.forEach((v, i) => {
      const [x, y] = xy(i, v);
      doc.circle(x, y, 1.6).fillColor(s.color).fill();
    });
  }
  doc.moveTo(plot.x, plot.y + plot.height).lineTo(plot.x + plot.width, plot.y + plot.height).lineWidth(0.8).strokeColor(AXIS).stroke();
  let lx = box.x + 34;
  for (const s of series) {
    doc.rect(lx, box.y + 20, 8, 8).fillColor(s.color).fill();
    doc.font('body').fontSize(8).fillColor(INK).text(s.label, lx + 12, box.y + 20, { lineBreak: false });
    lx += 24 + doc.widthOfString(s.label);
  }
}
