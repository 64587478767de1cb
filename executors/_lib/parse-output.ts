import type { ExecutorResult } from '../../core/plugin-api/index.ts';

const TAIL_CHARS = 200;

function tail(text: string): string {
  const t = text.trim();
  return t.length > TAIL_CHARS ? `…${t.slice(-TAIL_CHARS)}` : t;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parse(stdout: string): Record<string, unknown> | null {
  try {
    const doc: unknown = JSON.parse(stdout);
    return isRecord(doc) && typeof doc.status === 'string' && doc.status !== '' ? doc : null;
  } catch {
    return null;
  }
}

/** The error an executable reported as `{status: "error", error: {code, message}}`. */
function reportedError(doc: Record<string, unknown>): { code: string; message: string } {
  const e = isRecord(doc.error) ? doc.error : {};
  const code = typeof e.code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(e.code) ? e.code : 'script_error';
  const message = typeof e.message === 'string' && e.message !== '' ? e.message.slice(0, 1000) : 'the executable reported an error';
  return { code, message };
}

/**
 * Turns a finished process into a result. The exit code is authoritative: a non-zero
 * exit fails the run even when stdout claims success, and then a reported
 * `{status:"error"}` supplies the error, otherwise `exit_code` does.
 */
export function resultOfExit(stdout: string, exitCode: number | null, signal: NodeJS.Signals | null): ExecutorResult {
  const doc = parse(stdout);
  if (doc?.status === 'error') {
    return { status: 'failed', output: { status: 'error', error: reportedError(doc) }, error: reportedError(doc) };
  }
  if (exitCode !== 0) {
    const how = exitCode === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${exitCode}`;
    return { status: 'failed', output: { exit_code: exitCode }, error: { code: 'exit_code', message: `the executable ${how}` } };
  }
  if (!doc) {
    const shown = tail(stdout);
    const message = shown === ''
      ? 'the executable wrote nothing on standard output (expected {"status": …, "data": …})'
      : `standard output is not a JSON document {"status": …, "data": …}: ${shown}`;
    return { status: 'failed', output: {}, error: { code: 'invalid_output', message } };
  }
  return { status: 'completed', output: { status: doc.status, data: doc.data ?? null } };
}
