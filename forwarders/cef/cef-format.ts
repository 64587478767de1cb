/**
 * ArcSight CEF ("Implementing ArcSight CEF", rev. 25): `CEF:0|Vendor|Product|Version|ClassId|Name|Severity|ext`.
 * Header fields escape `\` and `|` and carry no line breaks; extension values escape
 * `\` and `=` and write line breaks as `\n` / `\r`; keys are alphanumeric.
 */

export interface CefEvent {
  vendor: string;
  product: string;
  version: string;
  classId: string;
  name: string;
  /** 0-10. */
  severity: number;
  /** Keys in output order; undefined/null/empty values are left out. */
  extensions: Array<[string, string | number | null | undefined]>;
}

const HEADER_MAX = { vendor: 63, product: 63, version: 31, classId: 1023, name: 512 };
const VALUE_MAX = 1023;

export function escapeCefHeader(value: string, max = 1023): string {
  return value.replace(/[\r\n]+/g, ' ').slice(0, max).replace(/[\\|]/g, (c) => `\\${c}`);
}

export function escapeCefValue(value: string, max = VALUE_MAX): string {
  return value
    .slice(0, max)
    .replace(/[\\=]/g, (c) => `\\${c}`)
    .replace(/\r\n|\n/g, '\\n')
    .replace(/\r/g, '\\r');
}

export function formatCef(e: CefEvent): string {
  const severity = Math.min(10, Math.max(0, Math.round(e.severity)));
  const header = [
    'CEF:0',
    escapeCefHeader(e.vendor, HEADER_MAX.vendor),
    escapeCefHeader(e.product, HEADER_MAX.product),
    escapeCefHeader(e.version, HEADER_MAX.version),
    escapeCefHeader(e.classId, HEADER_MAX.classId),
    escapeCefHeader(e.name, HEADER_MAX.name),
    String(severity),
  ].join('|');
  const ext = e.extensions
    .filter(([key, v]) => /^[A-Za-z0-9]+$/.test(key) && v !== null && v !== undefined && v !== '')
    .map(([key, v]) => `${key}=${escapeCefValue(String(v))}`)
    .join(' ');
  return `${header}|${ext}`;
}
