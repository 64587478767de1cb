/**
 * A strict RFC 5424 parser for tests (RFC 5424 §6): anything the ABNF does not
 * allow throws, including an unescaped `]` or `"` inside a PARAM-VALUE, so the syslog
 * formatter's escaping is checked, not assumed.
 */

export interface SdParsed {
  id: string;
  params: Array<[string, string]>;
}

export interface Syslog5424 {
  pri: number;
  facility: number;
  severity: number;
  timestamp: string | null;
  hostname: string | null;
  appName: string | null;
  procId: string | null;
  msgId: string | null;
  sd: SdParsed[];
  /** MSG without the BOM; null when absent. */
  msg: string | null;
  bom: boolean;
}

const PRINT = /^[\x21-\x7e]+$/;
const SD_NAME = /^[\x21-\x7e]{1,32}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

function field(value: string | undefined, max: number, what: string): string | null {
  if (value === undefined || value === '') throw new Error(`${what} missing`);
  if (value === '-') return null;
  if (value.length > max || !PRINT.test(value)) throw new Error(`${what} invalid: ${JSON.stringify(value)}`);
  return value;
}

function sdName(value: string, what: string): string {
  if (!SD_NAME.test(value) || /[= \]"]/.test(value)) throw new Error(`${what} invalid: ${JSON.stringify(value)}`);
  return value;
}

/** Parses STRUCTURED-DATA from `pos`; returns the elements and the position after them. */
function parseSd(text: string, start: number): { sd: SdParsed[]; pos: number } {
  if (text[start] === '-') return { sd: [], pos: start + 1 };
  const sd: SdParsed[] = [];
  let pos = start;
  if (text[pos] !== '[') throw new Error('STRUCTURED-DATA must be - or [');
  while (text[pos] === '[') {
    pos += 1;
    const idEnd = text.slice(pos).search(/[ \]]/);
    if (idEnd === -1) throw new Error('unterminated SD-ELEMENT');
    const id = sdName(text.slice(pos, pos + idEnd), 'SD-ID');
    if (sd.some((e) => e.id === id)) throw new Error(`SD-ID ${id} repeated`);
    pos += idEnd;
    const params: Array<[string, string]> = [];
    while (text[pos] === ' ') {
      pos += 1;
      const eq = text.indexOf('=', pos);
      if (eq === -1) throw new Error('SD-PARAM without =');
      const name = sdName(text.slice(pos, eq), 'PARAM-NAME');
      pos = eq + 1;
      if (text[pos] !== '"') throw new Error(`PARAM-VALUE of ${name} not quoted`);
      pos += 1;
      let value = '';
      for (;;) {
        const c = text[pos];
        if (c === undefined) throw new Error(`unterminated PARAM-VALUE of ${name}`);
        if (c === '\\') {
          const next = text[pos + 1];
          if (next === '"' || next === '\\' || next === ']') {
            value += next;
            pos += 2;
          } else {
            value += c;
            pos += 1;
          }
          continue;
        }
        if (c === '"') break;
        if (c === ']') throw new Error(`unescaped ] in PARAM-VALUE of ${name}`);
        value += c;
        pos += 1;
      }
      pos += 1;
      params.push([name, value]);
    }
    if (text[pos] !== ']') throw new Error(`SD-ELEMENT ${id} not closed`);
    pos += 1;
    sd.push({ id, params });
  }
  return { sd, pos };
}

export function parse5424(text: string): Syslog5424 {
  const head = /^<(0|[1-9]\d{0,2})>1 /.exec(text);
  if (!head) throw new Error(`bad PRI/VERSION: ${JSON.stringify(text.slice(0, 12))}`);
  const pri = Number(head[1]);
  if (pri > 191) throw new Error(`PRI ${pri} out of range`);
  const parts = text.slice(head[0].length).split(' ');
  const [ts, host, app, proc, msgid] = parts;
  const timestamp = field(ts, 64, 'TIMESTAMP');
  if (timestamp !== null && !TIMESTAMP.test(timestamp)) throw new Error(`TIMESTAMP invalid: ${timestamp}`);
  const hostname = field(host, 255, 'HOSTNAME');
  const appName = field(app, 48, 'APP-NAME');
  const procId = field(proc, 128, 'PROCID');
  const msgId = field(msgid, 32, 'MSGID');
  const sdStart = head[0].length + [ts, host, app, proc, msgid].join(' ').length + 1;
  const { sd, pos } = parseSd(text, sdStart);
  let msg: string | null = null;
  let bom = false;
  if (pos < text.length) {
    if (text[pos] !== ' ') throw new Error('MSG must follow STRUCTURED-DATA after one space');
    msg = text.slice(pos + 1);
    if (msg.startsWith('\uFEFF')) {
      bom = true;
      msg = msg.slice(1);
    }
  }
  return { pri, facility: pri >> 3, severity: pri & 7, timestamp, hostname, appName, procId, msgId, sd, msg, bom };
}
