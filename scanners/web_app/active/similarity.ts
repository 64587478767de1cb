/**
 * How alike two responses are, for boolean-based SQL injection: the Dice coefficient of
 * their lines (an HTML tag boundary also cuts a line), after removing the values that
 * were sent (pages often echo them) in raw, URL-encoded and HTML-escaped form. 1 is
 * identical, 0 shares nothing. Cheap and good enough to tell "the row is shown" from
 * "no row", which is what a boolean condition flips.
 */
export function similarity(a: string, b: string, sent: readonly string[] = []): number {
  const x = lines(strip(a, sent));
  const y = lines(strip(b, sent));
  if (!x.length && !y.length) return 1;
  const counts = new Map<string, number>();
  for (const l of x) counts.set(l, (counts.get(l) ?? 0) + 1);
  let common = 0;
  for (const l of y) {
    const n = counts.get(l) ?? 0;
    if (n > 0) {
      common += 1;
      counts.set(l, n - 1);
    }
  }
  return (2 * common) / (x.length + y.length);
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function strip(body: string, sent: readonly string[]): string {
  let out = body;
  for (const value of sent) {
    if (!value) continue;
    for (const form of new Set([value, encodeURIComponent(value), escapeHtml(value), escapeHtml(value).replace(/&#39;/g, '&#x27;')])) out = out.split(form).join('');
  }
  return out;
}

function lines(body: string): string[] {
  return body
    .split(/\n|(?<=>)/)
    .map((l) => l.trim())
    .filter(Boolean);
}
