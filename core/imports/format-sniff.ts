import type { ImportFormat } from './import-result.ts';

/**
 * Which tool wrote a file, judged from its first kilobytes, only where the marks are
 * unmistakable: SARIF's `"runs"` with its version or schema, ZAP's `"@programName"` or
 * `"site"` with `"@name"`, nuclei's `"template-id"`, nmap's `<nmaprun>` root, bandit's
 * `"metrics"` with its `SEVERITY.`/`CONFIDENCE.` counters (or an issue's `"test_id"` with
 * `"issue_severity"`), gitleaks' array of leaks with `"RuleID"` and `"Fingerprint"`. Picks the importer when the caller gives no format, and tells a
 * caller who sent a file under the wrong format what it looks like, before anything else is read.
 */
export function sniffFormat(head: string): ImportFormat | null {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('<')) return /<nmaprun[\s>]/.test(text) ? 'nmap' : null;
  if (!text.startsWith('{') && !text.startsWith('[')) return null;
  if (text.startsWith('{') && /"runs"\s*:/.test(text) && (/"version"\s*:\s*"2\.1\.0"/.test(text) || /"\$schema"\s*:\s*"[^"]*sarif/i.test(text))) return 'sarif';
  if (text.startsWith('{') && (/"@programName"\s*:/.test(text) || (/"site"\s*:/.test(text) && /"@name"\s*:/.test(text)))) return 'zap';
  if (/"(template-id|templateID)"\s*:/.test(text) && /"info"\s*:/.test(text)) return 'nuclei';
  if (text.startsWith('[') && /"RuleID"\s*:/.test(text) && /"(Fingerprint|StartLine)"\s*:/.test(text)) return 'gitleaks';
  if (text.startsWith('{') && ((/"metrics"\s*:/.test(text) && /"(SEVERITY|CONFIDENCE)\.(HIGH|MEDIUM|LOW|UNDEFINED)"\s*:/.test(text)) || (/"test_id"\s*:/.test(text) && /"issue_severity"\s*:/.test(text)))) return 'bandit';
  return null;
}

/** The first `chars` characters of a text source. */
export async function headOf(text: () => AsyncIterable<string>, chars = 64 * 1024): Promise<string> {
  let head = '';
  for await (const chunk of text()) {
    head += chunk;
    if (head.length >= chars) break;
  }
  return head.slice(0, chars);
}
