/** One step into a JSON document: an object key or an array index. */
export type PathPart = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/**
 * A JSONPath expression naming one value, the way error messages show where a file is
 * wrong: `$.runs[0].results[12].level`, `$.site[0]["@name"]`.
 */
export function jsonPath(parts: readonly PathPart[]): string {
  let out = '$';
  for (const p of parts) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (IDENTIFIER.test(p)) out += `.${p}`;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}
