/**
 * RFC 5424 message building (RFC 5424 §6, the SYSLOG-MSG ABNF): header fields sanitised to
 * PRINTUSASCII with length caps and NILVALUE, SD-NAMEs filtered, SD-PARAM values
 * escaped, MSG as UTF-8 with a BOM. The result is one SYSLOG-MSG string; framing is
 * the transport's job.
 */

export interface SdElement {
  /** `name@<PEN>` for private ids. */
  id: string;
  params: Array<[string, string]>;
}

export interface SyslogMessage {
  facility: number;
  /** 0 emergency … 7 debug. */
  severity: number;
  /** ISO 8601 with `Z`; null for NILVALUE. */
  timestamp: string | null;
  hostname: string | null;
  appName: string | null;
  procId: string | null;
  msgId: string | null;
  sd: SdElement[];
  msg: string;
  /** Prefix MSG with the UTF-8 BOM (RFC 5424 MSG-UTF8). CEF payloads go without it. */
  bom: boolean;
}

const BOM = '\uFEFF';

/** PRINTUSASCII (33-126) only, capped, `-` when empty. */
export function headerField(value: string | null | undefined, max: number): string {
  const clean = (value ?? '').replace(/[^\x21-\x7e]/g, '').slice(0, max);
  return clean === '' ? '-' : clean;
}

/** SD-NAME: PRINTUSASCII except `=`, SP, `]`, `"`; 1 to 32 characters. */
export function sdName(value: string): string {
  const clean = value.replace(/[^\x21-\x7e]|[="\]]/g, '_').slice(0, 32);
  return clean === '' ? '_' : clean;
}

/** PARAM-VALUE escaping: `"`, `\` and `]` get a backslash; nothing else is touched. */
export function escapeSdValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

const CANONICAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** RFC 5424 TIMESTAMP: at most 6 fraction digits, upper-case T and Z. */
function timestampField(iso: string | null): string {
  if (!iso) return '-';
  // Event timestamps are already toISOString() output; only other forms need re-formatting.
  if (CANONICAL_TIME.test(iso)) return iso;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? '-' : new Date(ms).toISOString();
}

function structuredData(elements: SdElement[]): string {
  if (!elements.length) return '-';
  const seen = new Set<string>();
  let out = '';
  for (const el of elements) {
    const id = sdName(el.id);
    if (seen.has(id)) continue;
    seen.add(id);
    out += `[${id}${el.params.map(([k, v]) => ` ${sdName(k)}="${escapeSdValue(v)}"`).join('')}]`;
  }
  return out;
}

/** The fields that stay the same for every message of one integration. */
export type SyslogOrigin = Pick<SyslogMessage, 'facility' | 'hostname' | 'appName' | 'procId'>;

/**
 * A formatter for one origin: HOSTNAME, APP-NAME and PROCID are sanitised once here
 * rather than for every message (a forwarder renders thousands per second).
 */
export function syslogFormatter(origin: SyslogOrigin): (m: Omit<SyslogMessage, keyof SyslogOrigin>) => string {
  const facility = Math.min(23, Math.max(0, origin.facility)) * 8;
  const fixed = `${headerField(origin.hostname, 255)} ${headerField(origin.appName, 48)} ${headerField(origin.procId, 128)}`;
  return (m) => {
    const pri = facility + Math.min(7, Math.max(0, m.severity));
    const msg = m.msg === '' ? '' : ` ${m.bom ? BOM : ''}${m.msg}`;
    return `<${pri}>1 ${timestampField(m.timestamp)} ${fixed} ${headerField(m.msgId, 32)} ${structuredData(m.sd)}${msg}`;
  };
}

export function formatSyslog(m: SyslogMessage): string {
  return syslogFormatter(m)(m);
}

/**
 * Cuts a message to `maxBytes` of UTF-8 without splitting a character or leaving a
 * dangling escape backslash (which would escape whatever the receiver reads next).
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: short messages need no byte count.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  const trailing = /\\+$/.exec(cut)?.[0].length ?? 0;
  if (trailing % 2 === 1) cut = cut.slice(0, -1);
  return cut;
}
