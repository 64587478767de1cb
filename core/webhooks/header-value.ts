/**
 * Custom webhook header values must be HTTP header text (RFC 9110 §5.5): visible ASCII,
 * with spaces and tabs only between visible characters. Anything else either cannot be
 * sent at all (undici refuses CR, LF, NUL and characters above U+00FF), would be sent as
 * bytes the receiver reads differently (U+0080-U+00FF go out as Latin-1, not the UTF-8
 * the user typed), or is silently changed on the way (receivers strip leading and
 * trailing whitespace). So such a value is refused when the webhook is saved, and a value
 * stored before this rule fails its delivery with the reason instead of an opaque error.
 *
 * The problem is described without the value (it is often a credential); the offending
 * character is named by its code point.
 */
export function headerValueProblem(value: string): string | null {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e)) continue;
    if (code === 0x0d || code === 0x0a) return 'contains a line break (CR or LF), which would end the header';
    const point = value.codePointAt(i)!;
    const name = `U+${point.toString(16).toUpperCase().padStart(4, '0')}`;
    if (code < 0x20 || code === 0x7f) return `contains the control character ${name}`;
    const shown = point >= 0xa0 && !(point >= 0xd800 && point <= 0xdfff) ? ` (${String.fromCodePoint(point)})` : '';
    return `contains ${name}${shown}, which is not ASCII; header values must be visible ASCII characters, spaces and tabs`;
  }
  if (/^[ \t]|[ \t]$/.test(value)) return 'starts or ends with a space or tab, which receivers strip';
  return null;
}

/** The first custom header whose value is not header text, with the reason; null when all are valid. */
export function invalidHeader(headers: Record<string, string>): { name: string; problem: string } | null {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerValueProblem(value);
    if (problem) return { name, problem };
  }
  return null;
}
