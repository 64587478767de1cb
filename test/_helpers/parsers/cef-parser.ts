/**
 * A strict CEF parser for tests ("Implementing ArcSight CEF", rev. 25: header and extension escaping): header fields split on unescaped
 * `|` with only `\\` and `\|` allowed as escapes; extension values run to the next
 * ` key=` and allow only `\\`, `\=`, `\n`, `\r`. An unescaped `=` inside a value, a
 * bad key or a stray escape throws.
 */

export interface CefParsed {
  version: number;
  vendor: string;
  product: string;
  deviceVersion: string;
  classId: string;
  name: string;
  severity: number;
  extensions: Record<string, string>;
  /** Keys in the order they appeared. */
  keys: string[];
}

function headerFields(text: string): { fields: string[]; rest: string } {
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== '\\' && next !== '|') throw new Error(`bad header escape \\${next ?? ''}`);
      current += next;
      i += 1;
    } else if (c === '|') {
      fields.push(current);
      current = '';
      if (fields.length === 7) return { fields, rest: text.slice(i + 1) };
    } else if (c === '\n' || c === '\r') {
      throw new Error('line break in CEF header');
    } else {
      current += c;
    }
  }
  throw new Error(`CEF header has ${fields.length} of 7 fields`);
}

function unescapeValue(raw: string, key: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c !== '\\') {
      if (c === '\n' || c === '\r') throw new Error(`raw line break in ${key}`);
      out += c;
      continue;
    }
    const next = raw[i + 1];
    if (next === '\\' || next === '=') out += next;
    else if (next === 'n') out += '\n';
    else if (next === 'r') out += '\r';
    else throw new Error(`bad extension escape \\${next ?? ''} in ${key}`);
    i += 1;
  }
  return out;
}

function parseExtensions(text: string): { extensions: Record<string, string>; keys: string[] } {
  const extensions: Record<string, string> = {};
  const keys: string[] = [];
  if (text === '') return { extensions, keys };
  // Positions of unescaped '='.
  const eqs: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === '=') eqs.push(i);
  }
  const starts = eqs.map((eq) => {
    let s = eq;
    while (s > 0 && /[A-Za-z0-9]/.test(text[s - 1]!)) s -= 1;
    if (s === eq || (s > 0 && text[s - 1] !== ' ')) throw new Error(`unescaped = in a value near ${JSON.stringify(text.slice(Math.max(0, eq - 20), eq + 5))}`);
    return s;
  });
  if (starts[0] !== 0) throw new Error('extension must start with key=');
  for (let k = 0; k < eqs.length; k++) {
    const key = text.slice(starts[k], eqs[k]);
    const end = k + 1 < eqs.length ? starts[k + 1]! - 1 : text.length;
    if (key in extensions) throw new Error(`extension key ${key} repeated`);
    extensions[key] = unescapeValue(text.slice(eqs[k]! + 1, end), key);
    keys.push(key);
  }
  return { extensions, keys };
}

export function parseCef(line: string): CefParsed {
  const m = /^CEF:(\d+)\|/.exec(line);
  if (!m) throw new Error(`not a CEF line: ${JSON.stringify(line.slice(0, 20))}`);
  const { fields, rest } = headerFields(line);
  const [, vendor, product, deviceVersion, classId, name, sev] = fields as [string, string, string, string, string, string, string];
  if (!/^(10|[0-9])$/.test(sev)) throw new Error(`severity ${sev} is not 0-10`);
  return { version: Number(m[1]), vendor, product, deviceVersion, classId, name, severity: Number(sev), ...parseExtensions(rest) };
}
